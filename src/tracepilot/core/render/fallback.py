"""Text of anything without a renderer of its own: `render()` dispatches on the result's type, then falls
back to `headline()`/`describe()`/`render()` and the fields."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ..model import (
    BreakpointInfo,
    CodeLocation,
    EventRecord,
    ExceptionInfo,
    FrameChange,
    FrameInfo,
    HotswapResult,
    Inspection,
    MarkInfo,
    OutputChunk,
    Snapshot,
    SourceView,
    Status,
    StopReason,
    ThreadInfo,
    TraceResult,
    ValueView,
    Variable,
    VmInfo,
    WaitResult,
    WatchInfo,
)
from ..model_heap import ClassSummary, HeapCount, LockReport, Referrers
from .inspection import (
    class_summary,
    classes,
    frame_change,
    heap,
    inspection,
    lock_report,
    mark,
    referrers,
    trace,
)
from .pieces import clip, exception, location, stop, value, variable, variables
from .session import (
    breakpoint_info,
    breakpoints,
    event,
    events,
    frame,
    frames,
    output,
    snapshot,
    source_view,
    status,
    thread,
    threads,
    vm,
    wait_result,
    watch,
)

# -- anything ------------------------------------------------------------------------------------------------


def _fallback(obj: Any, depth: int = 0) -> str:
    if obj is None:
        return "ok"
    for name in ("headline", "describe", "render"):
        method = getattr(obj, name, None)
        if callable(method):
            try:
                text = method()
            except TypeError:
                continue
            if isinstance(text, str):
                return text
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        obj = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, Mapping):
        lines = []
        for key, val in obj.items():
            if val is None or val == [] or val == {}:
                continue
            if isinstance(val, str | int | float | bool):
                lines.append(f"{key}: {clip(str(val))}")
            elif depth < 2:
                inner = render(val, depth + 1)
                lines.append(f"{key}:" + ("\n  " + inner.replace("\n", "\n  ") if "\n" in inner else f" {inner}"))
        return "\n".join(lines) if lines else "ok"
    if isinstance(obj, list | tuple):
        if not obj:
            return "(none)"
        return "\n".join(render(item, depth + 1) for item in obj)
    if hasattr(obj, "value") and isinstance(getattr(obj, "value", None), str):  # enums
        return obj.value
    return clip(str(obj), 2000)


_BY_TYPE: dict[type, Any] = {
    Status: status,
    WaitResult: wait_result,
    StopReason: stop,
    BreakpointInfo: breakpoint_info,
    ThreadInfo: thread,
    FrameInfo: frame,
    Variable: variable,
    ValueView: value,
    EventRecord: event,
    ExceptionInfo: exception,
    CodeLocation: location,
    VmInfo: vm,
    Snapshot: snapshot,
    SourceView: source_view,
    Inspection: inspection,
    ClassSummary: class_summary,
    LockReport: lock_report,
    Referrers: referrers,
    WatchInfo: watch,
    MarkInfo: mark,
    TraceResult: trace,
    HotswapResult: lambda h: h.headline(),
    FrameChange: frame_change,
}

_LIST_BY_TYPE: dict[type, Any] = {
    BreakpointInfo: breakpoints,
    ThreadInfo: threads,
    FrameInfo: frames,
    Variable: variables,
    EventRecord: events,
    OutputChunk: output,
    ClassSummary: classes,
    HeapCount: heap,
    WatchInfo: lambda ws: "\n".join(watch(w) for w in ws),
    MarkInfo: lambda ms: "\n".join(mark(m) for m in ms),
}


def render(obj: Any, depth: int = 0) -> str:
    """The compact text of any core result."""
    if isinstance(obj, str):
        return obj
    for cls, fn in _BY_TYPE.items():
        if isinstance(obj, cls):
            return fn(obj)
    if isinstance(obj, list | tuple) and obj:
        for cls, fn in _LIST_BY_TYPE.items():
            if all(isinstance(item, cls) for item in obj):
                return fn(obj)
    if isinstance(obj, list | tuple) and not obj:
        return "(none)"
    return _fallback(obj, depth)


def removed(ids: Sequence[str]) -> str:
    """What a remove call took away: "removed bp-1, bp-2" or "nothing removed"."""
    return ("removed " + ", ".join(ids)) if ids else "nothing removed"


