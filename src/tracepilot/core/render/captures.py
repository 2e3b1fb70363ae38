"""Captures as text, each read like a stop's snapshot: where and which thread, the stack, the top frames'
variables opened down to the point's depth (every cut said), the expressions."""

from __future__ import annotations

from collections.abc import Sequence

from ..capture.model import Capture, CapturedValue
from .pieces import location

MAX_STACK = 12  # frames listed by place; the rest are counted
MAX_CHILD_LINES = 40  # lines of one opened value


def captures(found: Sequence[Capture]) -> str:
    if not found:
        return "no captures yet (a capture point records one when its line is hit and its condition holds; " \
               "captures wait=SECONDS waits for the next)"
    return "\n\n".join(capture(c) for c in found)


def capture(c: Capture) -> str:
    lines = [c.headline() + f" — capture seq {c.seq}"]
    if c.note:
        lines.append(f"note: {c.note}")
    if c.copy:  # which path read the values, and why (issue 31)
        lines.append(f"read: {c.copy}")
    if c.skipped:
        lines.append(f"the rate limit skipped {c.skipped} hit(s) of this point so far")
    if c.frames:
        lines.append("stack:")
        for f in c.frames[:MAX_STACK]:
            lines.append(f"  #{f.index} {location(f.location)}")
        if len(c.frames) > MAX_STACK:
            lines.append(f"  … {len(c.frames) - MAX_STACK} more frames (in the structured answer)")
    for f in c.frames:
        if f.locals is None:
            continue
        head = "locals:" if f.index == 0 else f"locals of #{f.index} {f.location.method}:"
        lines.append(head if f.locals else head + " (none)")
        for v in f.locals:
            lines.extend(value_lines(v, "  "))
    if c.expressions:
        lines.append("expressions:")
        for v in c.expressions:
            lines.extend(value_lines(v, "  "))
    if c.cuts:
        lines.append(f"cut by the limits: {len(c.cuts)} value(s) (each says what was left out; capture_limits "
                     "raises them)")
    return "\n".join(lines)


def value_lines(v: CapturedValue, indent: str, budget: list[int] | None = None) -> list[str]:
    """A value and, indented below it, what it held at the hit."""
    budget = budget if budget is not None else [MAX_CHILD_LINES]
    cut = f"  [{v.cut}]" if v.cut else ""
    out = [f"{indent}{v.name} = {v.text}{cut}"]
    for child in v.children:
        if budget[0] <= 0:
            out.append(f"{indent}  … (more in the structured answer)")
            break
        budget[0] -= 1
        out.extend(value_lines(child, indent + "  ", budget))
    return out
