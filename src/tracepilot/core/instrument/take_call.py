"""A capture point's probe: what it calls once its condition holds, instead of hit() alone.

    if (CaptureTake2.take(POINT, KINDS, new Object[] {this, local1, ...}) == FALL_BACK) hit();

`take` (core/capture/java/CaptureTake2__TracepilotProbe.java) takes the capture in the JVM without holding
the thread; FALL_BACK hands this hit to the debugger (hit(): the thread is held while it is read). The values
passed are `this` and every live local the probe receives (primitives boxed), in the probe's capture order:
`passed_values` says which those are, for the debugger to name them."""

from __future__ import annotations

from . import bytecode as bc
from .assemble import Assembler, Label
from .shapes import BOX_OF, Capture

TAKE_CLASS = "tracepilot/CaptureTake2__TracepilotProbe"  # (take_bytes.INTERNAL: core/capture is above)
TAKE_SIGNATURE = "(ILjava/lang/String;[Ljava/lang/Object;)I"
LOAD = {"J": bc.LLOAD, "F": bc.FLOAD, "D": bc.DLOAD, "Z": bc.ILOAD, "B": bc.ILOAD, "C": bc.ILOAD, "S": bc.ILOAD,
        "I": bc.ILOAD}


def passed_values(captures: list[Capture]) -> list[int]:
    """Indexes of the captures a take call passes: `this` and the locals (not fields a condition reads)."""
    return [i for i, c in enumerate(captures) if c.kind in ("this", "local")]


def kinds_of(captures: list[Capture], counted: bool = False) -> str:
    """One letter per value passed (take reads those), then "|" and each value's slot ("t": `this`), which the
    record carries back to the debugger: "LIL|t,1,2". `counted`: then the hit's number ("h"), when a hit rule
    counts in the probe (by the time the debugger reads the record, later hits may have counted on)."""
    passed = [captures[i] for i in passed_values(captures)]
    letters = "".join(c.descriptor[0] if c.descriptor[0] in LOAD else "L" for c in passed)
    names = ["t" if c.kind == "this" else str(c.slot) for c in passed]
    return letters + ("I" if counted else "") + "|" + ",".join(names + (["h"] if counted else []))


def emit_take(a: Assembler, class_name: str, captures: list[Capture], slots: list[int], point: int,
              done: Label, hit_slot: int | None = None) -> int:
    """The take call and its fallback to hit(); returns the stack it needs. `hit_slot`: the local holding the
    hit's number (a hit rule's count), passed last."""
    passed = passed_values(captures)
    a.push_int(point)
    a.ldc(a.pool.add_string(kinds_of(captures, hit_slot is not None)))
    a.push_int(len(passed) + (hit_slot is not None))
    a.u2(bc.ANEWARRAY, a.pool.add_class("java/lang/Object"))
    for n, i in enumerate(passed):
        descriptor = captures[i].descriptor
        a.op(bc.DUP)
        a.push_int(n)
        a.local(LOAD.get(descriptor, bc.ALOAD), slots[i])
        if descriptor in BOX_OF:
            box = BOX_OF[descriptor]
            a.invoke(bc.INVOKESTATIC, box[1:-1], "valueOf", f"({descriptor}){box}")
        a.op(0x53)  # aastore
    if hit_slot is not None:
        a.op(bc.DUP)
        a.push_int(len(passed))
        a.local(bc.ILOAD, hit_slot)
        a.invoke(bc.INVOKESTATIC, "java/lang/Integer", "valueOf", "(I)Ljava/lang/Integer;")
        a.op(0x53)  # aastore
    a.invoke(bc.INVOKESTATIC, TAKE_CLASS, "take", TAKE_SIGNATURE)
    a.op(bc.ICONST_0 + 1)
    a.branch(bc.IF_ICMPNE, done)
    a.invoke(bc.INVOKESTATIC, class_name, "hit", "()V")
    return 8
