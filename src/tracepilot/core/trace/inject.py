"""Entry/exit calls into the trace probe, inserted in every traced method of one class (no JDWP).

At the method's first instruction `p = enter(m)` (p: the caller's node, in a new local), before each return
`exit(p, m)`, and a catch-all handler at the end of the code, `thrown(p, m); athrow`, covering the method's
code after the entry call: an exception that leaves the method passes through it (after the method's own
handlers, which come first in the table). Every stack map frame is rewritten in full with the new local
(frames.py); the handler's frame lists only it (the others Top), so it agrees with every frame of the method.
Tiny leaves call `count`/`uncount` instead: counted, not timed (is_tiny_leaf says why).

A constructor gets no handler: until super() returns its `this` is uninitialized, which a handler's frame
cannot describe without knowing where super() is. A constructor left by an exception is closed by the
probe at the next exit of a method below it (as the round trip closes frames whose exit it never saw).
Not traced in the JVM (the trace falls back to the round trip, saying why): a method whose first
instruction is a jump target (the entry call would run again at each jump there).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..instrument import bytecode as bc
from ..instrument.classfile import FULL, V_INTEGER, ClassFile, ExceptionEntry, Frame, StackMapTable, VType
from ..instrument.insert import NotInstrumentable, insert_many
from .frames import add_int_local, initial_locals, with_local
from .recording import Recorder

V_OBJECT = 7
ACC_ABSTRACT, ACC_NATIVE, ACC_STATIC = 0x0400, 0x0100, 0x0008
RETURNS = frozenset(range(bc.IRETURN, bc.RETURN + 1))


class NotTraceable(Exception):
    """This class cannot be traced in the JVM; the message says why."""


@dataclass
class TracedMethod:
    name: str
    descriptor: str
    index: int  # the probe's method number
    timed: bool = True  # False: a tiny leaf, counted only (see is_tiny_leaf)


LEAF_MAX_BYTES = 64
SLOW_OPS = frozenset([bc.INVOKEVIRTUAL, bc.INVOKESPECIAL, bc.INVOKESTATIC, bc.INVOKEINTERFACE, bc.INVOKEDYNAMIC,
                      bc.NEWARRAY, bc.ANEWARRAY, bc.MULTIANEWARRAY, 0xC2])  # 0xC2: monitorenter


def is_tiny_leaf(instructions: list[bc.Instruction], length: int) -> bool:
    """A method that calls nothing, never loops, takes no lock, allocates no array and is short: it runs in
    a few ns, less than the two System.nanoTime calls timing it would cost. It is counted, not timed (its
    time is in its caller's own time): a timing branch the JIT must keep, even if rarely taken, costs such a
    method's loop several times its speed (a nanoTime call on any path stops the JIT keeping the probe's
    state in registers across the loop)."""
    return length <= LEAF_MAX_BYTES and not any(
        ins.opcode in SLOW_OPS or any(t <= ins.offset for t in ins.targets) for ins in instructions)


def _push(index: int) -> bytes:
    if index > 0x7FFF:
        raise NotTraceable("more than 32,767 methods traced")
    return bytes([bc.SIPUSH]) + index.to_bytes(2, "big")


def _local(opcode: int, slot: int) -> bytes:
    if slot <= 0xFF:
        return bytes([opcode, slot])
    return bytes([bc.WIDE, opcode]) + slot.to_bytes(2, "big")


def instrument(data: bytes, hub: str, first_index: int, running: frozenset[tuple[str, str]] = frozenset(),
               skipped: list[str] | None = None) -> tuple[bytes, list[TracedMethod]]:
    """The class's bytes with probe calls in every method with code (numbered from `first_index`), but those
    in `running` (name, descriptor): a thread is inside them, and their frames must keep running code the
    JVM takes as equal to the new (EMCP), or breakpoints set in them would never fire for those frames.
    A method's number does not depend on `running` (every method with code takes one): instrumenting again
    with fewer running methods (when their threads have left them) keeps the numbers of the others.
    `skipped`: a method that cannot be traced is named there and left as it is (without it, NotTraceable).

    The entry call returns the caller's node (the probe's "current call" before this one), kept in a new
    local that each exit and the handler pass back: restoring the current call from a register spares the
    hot path a chain of dependent memory loads from one call to the next."""
    cf = ClassFile.parse(data)
    pool = cf.pool
    timed_calls = pool.add_method_ref(hub, "enter", "(I)I"), pool.add_method_ref(hub, "exit", "(II)V")
    counted_calls = pool.add_method_ref(hub, "count", "(I)I"), pool.add_method_ref(hub, "uncount", "(II)V")
    thrown = pool.add_method_ref(hub, "thrown", "(II)V")
    throwable = pool.add_class("java/lang/Throwable")
    recorder = Recorder(cf, hub)
    stack_map_name = None
    traced: list[TracedMethod] = []
    position = 0
    for method in cf.methods:
        code = method.code
        name = cf.member_name(method)
        descriptor = cf.member_descriptor(method)
        if code is None or method.access & (ACC_ABSTRACT | ACC_NATIVE):
            continue
        index = first_index + position
        position += 1
        if (name, descriptor) in running:
            continue
        instructions = bc.decode(code.code)
        if any(0 in ins.targets for ins in instructions) or any(e.handler_pc == 0 for e in code.exceptions):
            if skipped is None:
                raise NotTraceable(f"{cf.name}.{name} jumps back to its first instruction")
            skipped.append(f"{cf.name.replace('/', '.')}.{name}")
            continue
        slot = code.max_locals
        if slot + 1 > 0xFFFF:
            if skipped is None:
                raise NotTraceable(f"{cf.name}.{name} has no local variable slot left for the probe")
            skipped.append(f"{cf.name.replace('/', '.')}.{name}")
            continue
        timed = not is_tiny_leaf(instructions, len(code.code))
        enter, leave = timed_calls if timed else counted_calls
        initial = initial_locals(cf, name, descriptor, method.access)
        add_int_local(cf, code, initial, slot)
        entry = (_push(index) + bytes([bc.INVOKESTATIC]) + enter.to_bytes(2, "big") + _local(bc.ISTORE, slot)
                 + recorder.guard(index))
        exit_call = (_local(bc.ILOAD, slot) + _push(index) + bytes([bc.INVOKESTATIC])
                     + leave.to_bytes(2, "big"))
        inserts = {0: entry}
        closes = True  # every return guarded (recording.py: not those inside the method's own try blocks)
        for ins in instructions:
            if ins.opcode in RETURNS:
                in_try = any(e.start_pc <= ins.offset < e.end_pc for e in code.exceptions)
                closes = closes and not in_try
                inserts[ins.offset] = inserts.get(ins.offset, b"") + (b"" if in_try else recorder.guard(index)) \
                    + exit_call
        try:
            insert_many(code, pool, inserts, 3)
        except NotInstrumentable as exc:
            raise NotTraceable(f"{cf.name}.{name}: {exc}") from None
        code.max_locals = slot + 1
        for e in code.exceptions:  # a try block at the method's start: it begins after the entry call now
            e.start_pc = max(e.start_pc, len(entry))  # (its handler's frame has the probe's local set)
        traced.append(TracedMethod(name, descriptor, index, timed))
        if name == "<init>":  # no handler before super() (see the module's doc): the probe pops its frame later
            recorder.complete(code, descriptor, initial, 0 if method.access & ACC_STATIC else 1, slot, index, closes)
            continue
        handler = len(code.code)
        code.code += (_local(bc.ILOAD, slot) + _push(index) + bytes([bc.INVOKESTATIC]) + thrown.to_bytes(2, "big")
                      + bytes([bc.ATHROW]))
        code.exceptions.append(ExceptionEntry(len(entry), handler, handler, 0))
        code.max_stack = max(code.max_stack, 3)
        if cf.major >= 50:
            tables = code.find(StackMapTable)
            if not tables:
                stack_map_name = stack_map_name or pool.add_utf8("StackMapTable")
                tables = [StackMapTable(stack_map_name, [])]
                code.attributes.append(tables[0])
            tables[0].frames.append(Frame(FULL, handler, with_local([], slot, VType(V_INTEGER)),
                                          [VType(V_OBJECT, throwable)]))
        recorder.complete(code, descriptor, initial, 0 if method.access & ACC_STATIC else 1, slot, index, closes)
    return cf.to_bytes(), traced


def code_methods(data: bytes) -> int:
    """How many methods of the class have code: the probe numbers they take (see `instrument`)."""
    cf = ClassFile.parse(data)
    return sum(1 for m in cf.methods if m.code is not None and not m.access & (ACC_ABSTRACT | ACC_NATIVE))
