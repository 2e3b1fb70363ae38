"""A capture point's probe: what it calls once its condition holds, instead of hit() alone.

    if (CaptureTake3.take(POINT, KINDS, new Object[] {this, local1, ...}) == FALL_BACK) hit();

`take` (core/capture/java/CaptureTake3__TracepilotProbe.java) takes the capture in the JVM without holding
the thread; FALL_BACK hands this hit to the debugger (hit(): the thread is held while it is read). The values
passed are `this` and every live local the probe receives (primitives boxed), in the probe's capture order:
`passed_values` says which those are, for the debugger to name them."""

from __future__ import annotations

from . import bytecode as bc
from .assemble import Assembler, Label
from .shapes import BOX_OF, Capture

TAKE_CLASS = "tracepilot/CaptureTake3__TracepilotProbe"  # (take_bytes.INTERNAL: core/capture is above)
TAKE_SIGNATURE = "(ILjava/lang/String;[Ljava/lang/Object;)I"
LOAD = {"J": bc.LLOAD, "F": bc.FLOAD, "D": bc.DLOAD, "Z": bc.ILOAD, "B": bc.ILOAD, "C": bc.ILOAD, "S": bc.ILOAD,
        "I": bc.ILOAD}


def passed_values(captures: list[Capture]) -> list[int]:
    """Indexes of the captures a take call passes: `this` and the locals (not fields a condition reads)."""
    return [i for i, c in enumerate(captures) if c.kind in ("this", "local")]


HIT = "#"  # the name of the hit number a point with a hit count passes last (not a variable: no slot is "#")


def kinds_of(captures: list[Capture], hit: bool = False) -> str:
    """One letter per value passed (take reads those), then "|" and each value's slot ("t": `this`), which the
    record carries back to the debugger: "LIL|t,1,2". `hit`: the hit number (the probe's count) comes last,
    named HIT: "LILI|t,1,2,#"."""
    passed = [captures[i] for i in passed_values(captures)]
    letters = "".join(c.descriptor[0] if c.descriptor[0] in LOAD else "L" for c in passed)
    names = ["t" if c.kind == "this" else str(c.slot) for c in passed]
    return letters + "I" * hit + "|" + ",".join(names + [HIT] * hit)


def emit_take(a: Assembler, class_name: str, captures: list[Capture], slots: list[int], point: int,
              done: Label, hit_slot: int | None = None) -> int:
    """The take call and its fallback to hit(); returns the stack it needs. `hit_slot`: the local holding the
    hit number a hit count let by (the round trip numbers a capture by it)."""
    passed = passed_values(captures)
    loads = [(captures[i].descriptor, slots[i]) for i in passed] + ([("I", hit_slot)] if hit_slot is not None else [])
    a.push_int(point)
    a.ldc(a.pool.add_string(kinds_of(captures, hit_slot is not None)))
    a.push_int(len(loads))
    a.u2(bc.ANEWARRAY, a.pool.add_class("java/lang/Object"))
    for n, (descriptor, slot) in enumerate(loads):
        a.op(bc.DUP)
        a.push_int(n)
        a.local(LOAD.get(descriptor, bc.ALOAD), slot)
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
