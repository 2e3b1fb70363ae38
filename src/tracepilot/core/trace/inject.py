"""Entry/exit calls into the trace probe, inserted in every traced method of one class (no JDWP).

At the method's first instruction `enter(m)`, before each return `exit(m)`, and a catch-all handler at the end
of the code, `thrown(m); athrow`, covering the method's code after the entry call: an exception that leaves the
method passes through it (after the method's own handlers, which come first in the table). The handler's
stack map frame lists no locals (all of them Top), so it agrees with every frame of the method.

A constructor gets no handler: until super() returns its `this` is uninitialized, which a handler's frame
cannot describe without knowing where super() is. A constructor left by an exception is closed by the
probe at the next exit of a method below it (as the round trip closes frames whose exit it never saw).
Not traced in the JVM (the trace falls back to the round trip, saying why): a method whose first
instruction is a jump target (the entry call would run again at each jump there).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..instrument import bytecode as bc
from ..instrument.classfile import FULL, ClassFile, ExceptionEntry, Frame, StackMapTable, VType
from ..instrument.insert import NotInstrumentable, insert_many

V_OBJECT = 7
ACC_ABSTRACT, ACC_NATIVE = 0x0400, 0x0100
RETURNS = frozenset(range(bc.IRETURN, bc.RETURN + 1))


class NotTraceable(Exception):
    """This class cannot be traced in the JVM; the message says why."""


@dataclass
class TracedMethod:
    name: str
    descriptor: str
    index: int  # the probe's method number


def _push(index: int) -> bytes:
    if index > 0x7FFF:
        raise NotTraceable("more than 32,767 methods traced")
    return bytes([bc.SIPUSH]) + index.to_bytes(2, "big")


def instrument(data: bytes, hub: str, first_index: int, running: frozenset[tuple[str, str]] = frozenset(),
               skipped: list[str] | None = None) -> tuple[bytes, list[TracedMethod]]:
    """The class's bytes with probe calls in every method with code (numbered from `first_index`), but those
    in `running` (name, descriptor): a thread is inside them, and their frames must keep running code the
    JVM takes as equal to the new (EMCP), or breakpoints set in them would never fire for those frames.
    A method's number does not depend on `running` (every method with code takes one): instrumenting again
    with fewer running methods (when their threads have left them) keeps the numbers of the others.
    `skipped`: a method that cannot be traced is named there and left as it is (without it, NotTraceable)."""
    cf = ClassFile.parse(data)
    pool = cf.pool
    enter = pool.add_method_ref(hub, "enter", "(I)V")
    leave = pool.add_method_ref(hub, "exit", "(I)V")
    thrown = pool.add_method_ref(hub, "thrown", "(I)V")
    throwable = pool.add_class("java/lang/Throwable")
    stack_map_name = None
    traced: list[TracedMethod] = []
    position = 0
    for method in cf.methods:
        code = method.code
        name = cf.member_name(method)
        if code is None or method.access & (ACC_ABSTRACT | ACC_NATIVE):
            continue
        index = first_index + position
        position += 1
        if (name, cf.member_descriptor(method)) in running:
            continue
        instructions = bc.decode(code.code)
        if any(0 in ins.targets for ins in instructions) or any(e.handler_pc == 0 for e in code.exceptions):
            if skipped is None:
                raise NotTraceable(f"{cf.name}.{name} jumps back to its first instruction")
            skipped.append(f"{cf.name.replace('/', '.')}.{name}")
            continue
        entry = _push(index) + bytes([bc.INVOKESTATIC]) + enter.to_bytes(2, "big")
        exit_call = _push(index) + bytes([bc.INVOKESTATIC]) + leave.to_bytes(2, "big")
        inserts = {0: entry}
        for ins in instructions:
            if ins.opcode in RETURNS:
                inserts[ins.offset] = inserts.get(ins.offset, b"") + exit_call
        try:
            insert_many(code, pool, inserts, 1)
        except NotInstrumentable as exc:
            raise NotTraceable(f"{cf.name}.{name}: {exc}") from None
        traced.append(TracedMethod(name, cf.member_descriptor(method), index))
        if name == "<init>":
            continue  # no handler before super() (see the module's doc): the probe pops its frame later
        handler = len(code.code)
        code.code += _push(index) + bytes([bc.INVOKESTATIC]) + thrown.to_bytes(2, "big") + bytes([bc.ATHROW])
        code.exceptions.append(ExceptionEntry(len(entry), handler, handler, 0))
        code.max_stack = max(code.max_stack, 2)
        if cf.major >= 50:
            tables = code.find(StackMapTable)
            if not tables:
                stack_map_name = stack_map_name or pool.add_utf8("StackMapTable")
                tables = [StackMapTable(stack_map_name, [])]
                code.attributes.append(tables[0])
            tables[0].frames.append(Frame(FULL, handler, [], [VType(V_OBJECT, throwable)]))
    return cf.to_bytes(), traced


def code_methods(data: bytes) -> int:
    """How many methods of the class have code: the probe numbers they take (see `instrument`)."""
    cf = ClassFile.parse(data)
    return sum(1 for m in cf.methods if m.code is not None and not m.access & (ACC_ABSTRACT | ACC_NATIVE))
