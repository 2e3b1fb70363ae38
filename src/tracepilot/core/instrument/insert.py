"""Insert a straight-line instruction sequence into a method body and shift everything after it.

The sequence goes in front of the instruction at ``at`` (the first instruction of a source line). Every
reference to an offset is remapped: branch and switch targets, the exception table, LineNumberTable,
LocalVariableTable(+Type), StackMapTable frame offsets and the `new` offsets of Uninitialized types. A
reference to ``at`` itself lands on the inserted code, so a jump to the line (a loop's back edge), the
line's entry in the LineNumberTable and a stack map frame at the line all cover it: the inserted code
runs whenever the line does, and its line is the user's line.

The inserted code has no branch and leaves the operand stack as it found it, so the existing frames stay
true and no frame is added; ``max_stack`` grows by what the sequence pushes (an upper bound, since the
depth at ``at`` is at most the old ``max_stack``). Switch padding is recomputed from each switch's new
position; a ``goto``/``jsr`` whose offset no longer fits 16 bits becomes ``goto_w``/``jsr_w``; a
conditional branch that would overflow is refused (it would need a new branch and frame).
"""

from __future__ import annotations

from . import bytecode as bc
from .classfile import V_UNINITIALIZED, Code, ConstantPool, LineNumberTable, LocalVariableTable, StackMapTable

__all__ = ["NotInstrumentable", "insert_code", "insert_many", "line_start"]

MAX_CODE = 65535


class NotInstrumentable(Exception):
    """This method cannot take the inserted code; the message says why (shown to the user)."""


def line_start(code: Code, line: int) -> int | None:
    """The first code index of ``line`` in this method (where a JDWP line breakpoint would bind)."""
    starts = [e.start_pc for table in code.find(LineNumberTable) for e in table.entries if e.line == line]
    return min(starts) if starts else None


def insert_code(code: Code, pool: ConstantPool, at: int, payload: bytes, extra_stack: int) -> None:
    """Insert ``payload`` before the instruction at ``at``, in place."""
    insert_many(code, pool, {at: payload}, extra_stack)


def insert_many(code: Code, pool: ConstantPool, inserts: dict[int, bytes], extra_stack: int) -> None:
    """Insert each payload before the instruction at its offset, in place, in one pass over the code (one
    decode and one layout however many probes the method gets: setting many conditions is not quadratic).
    ``extra_stack``: the most any one payload pushes (they run one after another, each leaves the stack
    as it found it)."""
    inserted = bc.decode(b"".join(inserts.values()))  # (each payload whole instructions: one decode for all)
    if any(ins.targets for ins in inserted) or any(ins.opcode in (bc.ATHROW, bc.RET) or
                                                    bc.IRETURN <= ins.opcode <= bc.RETURN for ins in inserted):
        raise ValueError("the inserted code must be straight-line (no branch, return or throw)")
    instructions = bc.decode(code.code)
    starts = {ins.offset for ins in instructions}
    for at in inserts:
        if at not in starts:
            raise NotInstrumentable(f"code index {at} is not the start of an instruction")
    sizes = {at: len(payload) for at, payload in inserts.items()}
    widened: set[int] = set()
    while True:
        new_pos, payload_at, end = _layout(instructions, sizes, widened)

        def ref(offset: int, new_pos: dict[int, int] = new_pos, payload_at: dict[int, int] = payload_at) -> int:
            return payload_at[offset] if offset in payload_at else new_pos[offset]

        grew = False
        for ins in instructions:
            if ins.opcode in bc.BRANCHES and ins.offset not in widened:
                delta = ref(ins.targets[0]) - new_pos[ins.offset]
                if not -32768 <= delta <= 32767:
                    if ins.opcode not in (bc.GOTO, bc.JSR):
                        raise NotInstrumentable("a conditional branch of this method would jump too far "
                                                "after the insertion (method near the 32 KB branch limit)")
                    widened.add(ins.offset)
                    grew = True
        if not grew:
            break
    if end > MAX_CODE:
        raise NotInstrumentable(f"the method would exceed the JVM's {MAX_CODE}-byte code limit")
    code.code = _emit(code.code, instructions, inserts, widened, new_pos, ref)
    for e in code.exceptions:
        e.start_pc, e.end_pc, e.handler_pc = ref(e.start_pc), ref(e.end_pc), ref(e.handler_pc)
    kept = []
    for attribute in code.attributes:
        if isinstance(attribute, LineNumberTable):
            for line in attribute.entries:
                line.start_pc = ref(line.start_pc)
        elif isinstance(attribute, LocalVariableTable):
            for local in attribute.entries:
                start, stop = ref(local.start_pc), ref(local.start_pc + local.length)
                local.start_pc, local.length = start, stop - start
        elif isinstance(attribute, StackMapTable):
            for frame in attribute.frames:
                frame.offset = ref(frame.offset)
                frame.locals = [_moved(v, new_pos) for v in frame.locals]
                frame.stack = [_moved(v, new_pos) for v in frame.stack]
        elif pool.utf8(attribute.name_index) in ("RuntimeVisibleTypeAnnotations", "RuntimeInvisibleTypeAnnotations"):
            continue  # they hold code offsets; annotations on local types never change what the code does
        kept.append(attribute)
    code.attributes = kept
    code.max_stack = min(code.max_stack + extra_stack, 0xFFFF)


def _layout(instructions: list[bc.Instruction], sizes: dict[int, int],
            widened: set[int]) -> tuple[dict[int, int], dict[int, int], int]:
    new_pos: dict[int, int] = {}
    payload_at: dict[int, int] = {}
    pos = 0
    for ins in instructions:
        if ins.offset in sizes:
            payload_at[ins.offset] = pos
            pos += sizes[ins.offset]
        new_pos[ins.offset] = pos
        if ins.is_switch:
            pos += bc.switch_length(ins, pos)
        elif ins.offset in widened:
            pos += 5
        else:
            pos += ins.length
    last = instructions[-1]
    new_pos[last.offset + last.length] = pos  # the end of the code (exclusive ends of ranges)
    return new_pos, payload_at, pos


def _emit(old: bytes, instructions: list[bc.Instruction], inserts: dict[int, bytes], widened: set[int],
          new_pos: dict[int, int], ref) -> bytes:
    out = bytearray()
    for ins in instructions:
        if ins.offset in inserts:
            out += inserts[ins.offset]
        here = new_pos[ins.offset]
        assert len(out) == here
        if ins.is_switch:
            out += bc.switch_bytes(ins, here, [ref(t) for t in ins.targets])
        elif ins.opcode in bc.BRANCHES:
            delta = ref(ins.targets[0]) - here
            if ins.offset in widened:
                out.append(bc.GOTO_W if ins.opcode == bc.GOTO else bc.JSR_W)
                out += delta.to_bytes(4, "big", signed=True)
            else:
                out.append(ins.opcode)
                out += delta.to_bytes(2, "big", signed=True)
        elif ins.opcode in bc.WIDE_BRANCHES:
            out.append(ins.opcode)
            out += (ref(ins.targets[0]) - here).to_bytes(4, "big", signed=True)
        else:
            out += old[ins.offset:ins.offset + ins.length]
    return bytes(out)


def _moved(v, new_pos: dict[int, int]):
    if v.tag == V_UNINITIALIZED:  # the offset of its `new` instruction, which moved with its code
        return type(v)(v.tag, new_pos[v.data])
    return v
