"""Text of what is seen at a stop beyond the snapshot: opened values, classes, locks, heap, referrers, marks,
traces and frame changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import CallNode, FrameChange, Inspection, MarkInfo, RecordedCall, TraceResult
from ..model_heap import ClassSummary, HeapCount, LockReport, Referrers
from .pieces import value, variable

# -- values opened up, classes, locks, heap --------------------------------------------------------------


def inspection(ins: Inspection) -> str:
    lines = [f"{ins.target} = {value(ins.value)} ({ins.value.type})"]
    if ins.string is not None:
        end = ins.start + len(ins.string)
        lines.append(f"chars [{ins.start}..{end}) of {ins.total}:")
        lines.append(ins.string)
    for child in ins.children:
        lines.append("  " + variable(child))
    for entry in ins.entries:
        lines.append(f"  {value(entry.key)} => {value(entry.value)}")
    if ins.more:
        shown = len(ins.string) if ins.string is not None else len(ins.children) + len(ins.entries)
        lines.append(f"  ... {ins.total - ins.start - shown} more: inspect with start={ins.start + shown}")
    return "\n".join(lines)


def class_summary(c: ClassSummary) -> str:
    text = f"{c.name} ({c.kind}" + (f", {c.source_file})" if c.source_file else ")")
    members = (c.fields or []) + (c.methods or [])
    for m in members:
        where = ""
        if m.lines:
            where = f"  lines {m.lines[0]}-{m.lines[-1]}" if len(m.lines) > 1 else f"  line {m.lines[0]}"
        text += f"\n  {'static ' if m.static else ''}{m.signature}{where}"
    return text


def classes(cs: Sequence[ClassSummary]) -> str:
    if not cs:
        return "no loaded class matches"
    return "\n".join([*(class_summary(c) for c in cs), *_cut_note(cs, "class(es)", 'narrow the pattern, e.g. "com.acme.*"')])


def _cut_note(items: Sequence[Any], what: str, how: str) -> list[str]:
    """The line a cut list ends with: how many more there are and how to see them (none if complete)."""
    more = getattr(items, "more", 0)
    return [f"... {more} more {what} not shown ({getattr(items, 'total', '?')} in all): {how}"] if more > 0 else []


def lock_report(report: LockReport) -> str:
    lines = [report.headline()]
    for t in report.threads:
        text = f"  {t.thread} ({t.state})" + (f" at {t.at}" if t.at is not None else "")
        parts = []
        if t.holds:
            parts.append("holds " + ", ".join(value(h) for h in t.holds))
        if t.waits_for is not None:
            wait = f"waits ({t.wait_kind or 'monitor'}) for {value(t.waits_for)}"
            parts.append(wait + (f" held by {t.owner}" if t.owner else ""))
        lines.append(text + (": " + "; ".join(parts) if parts else ""))
    return "\n".join(lines)


def heap(counts: Sequence[HeapCount]) -> str:
    if not counts:
        return "no loaded class matches"
    return "\n".join([*(f"{c.count:>10}  {c.class_name}" for c in counts),
                      *_cut_note(counts, "class(es)", 'narrow the pattern, e.g. "com.acme.*"')])


def referrers(refs: Referrers) -> str:
    lines = [f"objects referring to {value(refs.target)}:"]
    for r in refs.referrers:
        via = f" via {', '.join(r.via)}" if r.via else ""
        lines.append(f"  {value(r.value)} ({r.value.type}){via}")
    if not refs.referrers:
        lines.append("  (none)")
    if refs.more:
        lines.append("  ... more: raise limit")
    return "\n".join(lines)


def mark(m: MarkInfo) -> str:
    return f"${m.label} = {value(m.value)}" + (" (collected)" if m.collected else "")


FIRST_CALLS_SHOWN = 20


def first_call(c: RecordedCall, qualified: bool = True) -> str:
    """One recorded call: `name(arguments) -> returned` (or `threw` / `running`) and its thread; the TUI
    shares it, so both show a call alike. Not `qualified`: the method's simple name, under its class."""
    name = c.method.partition("(")[0]
    if not qualified:
        name = name.rpartition(".")[2]
    outcome = f" -> {c.returned}" if c.returned is not None else f" {c.ended}" if c.ended != "returned" else ""
    return f"{name}({', '.join(c.arguments)}){outcome}  [{c.thread}]"


def window(t: TraceResult) -> str:
    """The counting window (what `duration` asks for) and what the call spent around it."""
    setup = "instrumenting" if t.mode == "in-JVM" else "setting the requests"
    held = f", the program was held {_span(t.setup_held_ms)} of it" if t.setup_held_ms else ""
    read_held = f", the program was held {_span(t.read_held_ms)} of it" if t.read_held_ms else ""
    return (f"counted for {t.duration_ms / 1000:.1f}s ({setup} took {_span(t.setup_ms)}{held}; "
            f"reading {_span(t.read_ms)}{read_held})")


def _span(ms: float | None) -> str:
    ms = ms or 0.0
    return f"{ms:.0f} ms" if ms < 100 else f"{ms / 1000:.1f}s"


def trace(t: TraceResult) -> str:
    how = t.mode + (f" ({t.mode_reason})" if t.mode_reason else "")
    lines = [f"trace {t.pattern}: {t.calls} calls in {t.duration_ms / 1000:.2f}s (stopped by {t.stopped_by}; {how})"]
    if t.setup_ms is not None:
        lines.append(window(t))
    if t.note:
        lines.append(t.note)
    timed = any(m.own_ms is not None for m in t.methods)
    for m in t.methods[:15]:
        thrown = f"  {m.thrown} thrown out" if m.thrown else ""
        if m.own_ms is not None:
            sampled = " (sampled)" if m.sampled else ""
            lines.append(f"  {m.calls:>9}  {m.total_ms:>9.1f} ms total  {m.own_ms:>9.1f} ms own  "
                         f"{m.mean_us:>9.3f} us/call{sampled}  {m.method}{thrown}")
        else:
            lines.append(f"  {m.calls:>9}  {m.method}{thrown}")
    if len(t.methods) > 15:
        lines.append(f"  ... {len(t.methods) - 15} more method(s): a narrower pattern shows them")
    if t.timing:
        lines.append(t.timing)
    if t.call_tree:
        lines.append(f"call tree of {t.busiest_thread or 'the busiest thread'}:")
        lines.extend(_tree(t.call_tree, 1, [0], timed))
    if t.first_calls:
        lines.append("first calls (values as at the end of the trace):")
        lines.extend(f"  {first_call(c)}" for c in t.first_calls[:FIRST_CALLS_SHOWN])
        if len(t.first_calls) > FIRST_CALLS_SHOWN:
            lines.append(f"  ... {len(t.first_calls) - FIRST_CALLS_SHOWN} more in the structured answer")
    if t.folded:
        lines.append(f"folded stacks written to {t.folded}")
    if t.dropped:
        lines.append(f"({t.dropped} entries not kept: memory bound)")
    return "\n".join(lines)


def _tree(nodes: Sequence[CallNode], depth: int, budget: list[int], timed: bool = True) -> list[str]:
    out: list[str] = []
    for node in nodes:
        if budget[0] >= 30 or depth > 8:
            break
        budget[0] += 1
        out.append(f"{'  ' * depth}{node.method} x{node.calls}" + (f" {node.total_ms:.1f} ms" if timed else ""))
        out.extend(_tree(node.children, depth + 1, budget, timed))
    return out


def frame_change(fc: FrameChange) -> str:
    text = fc.message
    if fc.location is not None:
        text += f"\nnow at {fc.location}, thread {fc.thread}"
    if fc.value is not None:
        text += f"\nreturned {value(fc.value)}"
    return text


