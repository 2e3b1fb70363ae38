"""Session text: status, waits, breakpoints, threads, frames, events, program output, source and the
snapshot of a stop (a wait answers with it)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

from ..model import (
    BreakpointInfo,
    CodeLocation,
    EventRecord,
    FrameInfo,
    OutputChunk,
    SessionState,
    Snapshot,
    SourceView,
    Status,
    StopKind,
    StopReason,
    ThreadInfo,
    VmInfo,
    WaitResult,
    WatchInfo,
)
from .pieces import (
    MAX_FRAMES,
    MAX_LOCALS,
    STILL_RUNNING,
    clip,
    stop,
    value,
    variable,
    variables,
)

# -- session -------------------------------------------------------------------------------------------


def vm(info: VmInfo) -> str:
    pid = f", pid {info.pid}" if info.pid else ""
    return f"{info.name} {info.version} (JDWP {info.jdwp_version}) at {info.address}{pid}"


def status(st: Status, hints: bool = True) -> str:
    """The session's state; `hints` ends it with the tools an agent calls next (people know the commands)."""
    lines = [st.headline()]
    if st.state is SessionState.STOPPED and st.stop is not None:
        lines = [stop(st.stop)]
    if st.vm is not None:
        lines.append("vm: " + vm(st.vm) + (" (launched)" if st.launched else ""))
    elif st.target:
        lines.append(f"target: {st.target}")
    if st.reconnected:
        lines.insert(0, st.reconnected)
    if st.note:
        lines.append(st.note)
    if st.targets:  # a session with several JVMs: each one, * the current stop's (tools without target act on it)
        lines.append(f"targets ({len(st.targets)}):")
        lines.extend(t.line() for t in st.targets)
    lines.append(f"breakpoints: {st.breakpoints}; last event #{st.last_event_seq}")
    lines.extend(suspended_threads(st))
    if st.pending_stops:
        lines.append(f"{st.pending_stops} stop(s) of other threads not delivered yet: wait_for_stop (or resume) "
                     "returns the next")
    if st.last_error and st.state is not SessionState.DISCONNECTED:
        lines.append(f"last error: {st.last_error}")
    if not hints:
        pass
    elif st.state is SessionState.DISCONNECTED:
        lines.append("next: attach or launch")
    elif st.state is SessionState.STOPPED:
        lines.append("next: snapshot, step, resume")
    elif st.state is SessionState.RUNNING:
        lines.append("next: wait_for_stop, pause, breakpoint_set")
    return "\n".join(lines)


def suspended_threads(st: Status) -> list[str]:
    """One line per thread with a reason of its own (a stop, a pause, a call); threads merely held by a
    suspend-all stop are counted in one line. Nothing when the current stop is all there is."""
    own = [t for t in st.suspended if t.state != "held"]
    held = len(st.suspended) - len(own)
    lines: list[str] = []
    if len(own) > 1 or any(not t.current or t.state != "stopped" for t in own):
        lines.append(f"threads stopped ({len(own)}):")
        for t in own[:20]:
            mark = "*" if t.current else " "
            new = "" if t.delivered or t.state != "stopped" else " (not delivered yet)"
            lines.append(f" {mark} {t.name or t.id}: {t.why}{new}")
        if len(own) > 20:
            lines.append(f"   … {len(own) - 20} more: threads lists them all")
    if held:
        lines.append(f"{held} other thread(s) held: suspended with all threads by a suspend-all stop")
    return lines


def wait_result(result: WaitResult, context: Snapshot | None = None) -> str:
    """A waiting call's answer: the stop context, or a plain "still running"."""
    text = _wait_text(result, context)
    if result.reconnected and result.reconnected not in text:
        text = f"{result.reconnected}\n{text}"
    if result.stopped and result.pending:
        text += f"\n{result.pending} more stop(s) in other threads: wait_for_stop (or resume) returns the next"
    if result.note and result.note not in text:
        text += f"\n{result.note}"
    return text


def _wait_text(result: WaitResult, context: Snapshot | None = None) -> str:
    if result.stopped and result.stop is not None:
        if result.stop.kind is StopKind.VM_DEATH or result.state is SessionState.EXITED:
            return stop(result.stop) + ("\n" + result.message if result.message else "")
        if isinstance(context, Snapshot):
            return snapshot(context, reason=result.stop)
        return stop(result.stop)
    if result.state is SessionState.EXITED:
        named = f" [{result.stop.target}]" if result.stop is not None and result.stop.target else ""  # (several)
        return f"EXITED{named}" + (f" — {result.message}" if result.message else "")
    if result.state is SessionState.DISCONNECTED:
        return "DISCONNECTED" + (f" — {result.message}" if result.message else "")
    if result.reconnected and result.message.startswith(result.reconnected):
        result = dataclasses.replace(result, message=result.message[len(result.reconnected):].lstrip("; "))
    if result.message.startswith(STILL_RUNNING):
        return f"{result.message}: call wait_for_stop to keep waiting, or pause"
    if result.message and result.message != "running":
        return result.message
    return "RUNNING (not waiting): call wait_for_stop to wait for the next stop, or pause"


# -- breakpoints, threads, frames ----------------------------------------------------------------------


def breakpoint_notes(bp: BreakpointInfo) -> list[str]:
    """What a new breakpoint's options mean for the program: how its log template's {parts} read, and what
    a condition the debugger evaluates itself costs. Said when the breakpoint is set, not in every list."""
    notes = []
    if bp.log_values:
        notes.append(f"log {bp.log_values}")
    if bp.condition and (bp.mode or "").startswith("round trip"):
        held = "its thread" if bp.suspend == "thread" else "the program"
        notes.append(f"round trip: every hit pauses {held} while the debugger evaluates the condition, true or "
                     "not (slower, and it widens race windows: timing bugs may hide or change)")
    return notes


def breakpoint_info(bp: BreakpointInfo) -> str:
    """A breakpoint with what its hit does to the threads (the suspend policy) and, for a condition the
    debugger evaluates itself, what that costs the program."""
    text = "\n".join([bp.describe(), *breakpoint_notes(bp)])
    if bp.log and not bp.condition:
        return text
    if bp.suspend == "thread":
        return text + "\nsuspend thread: a hit stops only its thread; the others keep running"
    return text + "\nsuspend all: a hit stops every thread"


def breakpoints(bps: Sequence[BreakpointInfo]) -> str:
    if not bps:
        return "no breakpoints"
    return "\n".join(bp.describe() for bp in bps)


def thread(t: ThreadInfo) -> str:
    flags = []
    if not t.description:  # (a ThreadInfo the session did not explain)
        if t.why and t.why.startswith("inside a call"):
            flags.append("running " + t.why)
        elif t.suspended:
            flags.append("suspended" + (f": {t.why}" if t.why else ""))
    if t.is_virtual:
        flags.append("virtual")
    if t.is_system:
        flags.append("system")
    text = f"{'*' if t.current else ' '} {t.id} {t.name!r} {t.description or t.state}"
    if flags:
        text += f" ({', '.join(flags)})"
    if t.location is not None:
        text += f" at {t.location}"
    if t.waiting_for is not None:
        text += f", waiting for {value(t.waiting_for)}"
    if t.owned_monitors:
        text += ", holds " + ", ".join(value(m) for m in t.owned_monitors)
    return text


VIRTUAL_NOTE = ("(virtual threads: listed when the debugger met them (a stop, a start event) or JDWP lists them; "
                "JDWP leaves unmounted virtual threads out unless the JVM runs with "
                "-agentlib:jdwp=...,includevirtualthreads=y)")


def threads(ts: Sequence[ThreadInfo]) -> str:
    if not ts:
        return "no threads"
    lines = [thread(t) for t in ts]
    if any(t.is_virtual for t in ts):
        lines.append(VIRTUAL_NOTE)
    return "\n".join(lines)


def frame(f: FrameInfo) -> str:
    tags = " [native]" if f.is_native else ""
    return f"#{f.index} {f.location}{tags}"


def frames(fs: Sequence[FrameInfo], limit: int | None = None, with_locals: bool = True,
           fold_library: bool | None = None) -> str:
    """Frames top first. Folding (the default with a limit): each run of library frames below the top
    becomes one line ("… 6 frames in java.util.concurrent"), and only shown frames count against the limit,
    so the program's own callers stay visible."""
    if not fs:
        return "(no frames)"
    fold = limit is not None if fold_library is None else fold_library
    lines: list[str] = []
    run: list[FrameInfo] = []
    shown = 0
    last = -1
    for position, f in enumerate(fs):
        if limit is not None and shown >= limit:
            break
        last = position
        if fold and f.is_library and position != 0:
            run.append(f)
            continue
        if run:
            lines.append(library_run(run))
            run = []
        lines.append(frame(f))
        shown += 1
        if with_locals and f.locals:
            lines.extend("     " + variable(v) for v in f.locals[:MAX_LOCALS])
    if run:
        lines.append(library_run(run))
    rest = len(fs) - last - 1
    if rest > 0:
        lines.append(f"   … {rest} more frame(s): stack with start={fs[last].index + 1}")
    if fold_library and any(f.is_library for f in fs[1 : last + 1]):
        lines.append("(library frames folded: all_frames=true lists them)")
    return "\n".join(lines)


def library_run(run: Sequence[FrameInfo]) -> str:
    """One line for consecutive library frames: how many and in which packages."""
    packages: list[str] = []
    for f in run:
        package = f.location.class_name.rpartition(".")[0] or "(default package)"
        if package not in packages:
            packages.append(package)
    common = _common_package(packages)
    where = common if common.count(".") >= 1 else ", ".join(packages[:2]) + (", …" if len(packages) > 2 else "")
    return f"   … {len(run)} frame{'s' if len(run) != 1 else ''} in {where}"


def _common_package(packages: Sequence[str]) -> str:
    parts = [p.split(".") for p in packages]
    common: list[str] = []
    for segment in zip(*parts, strict=False):
        if any(s != segment[0] for s in segment):
            break
        common.append(segment[0])
    return ".".join(common)


# -- events and output -----------------------------------------------------------------------------------


def event(e: EventRecord) -> str:
    stamp = time.strftime("%H:%M:%S", time.localtime(e.time))
    return f"#{e.seq} {stamp} [{e.actor.value if hasattr(e.actor, 'value') else e.actor}] {e.kind}: {clip(e.text)}"


def events(es: Sequence[EventRecord], limit: int | None = None) -> str:
    """One line per event. An answer of the `events` tool (commands/observation.py EventPage) shows every
    event it holds, and says how to reach the matching ones it left out: `earlier` (cut by tail) and `later`
    (cut by limit). Other callers may cap the lines at `limit` (the latest kept)."""
    if not es:
        return "no new events"
    shown = es[-limit:] if limit is not None else es
    lines = [event(e) for e in shown]
    earlier = getattr(es, "earlier", 0)
    later = getattr(es, "later", 0)
    if earlier:
        since = getattr(es, "since", 0)
        lines.insert(0, f"... {earlier} earlier event(s) not shown: tail={len(es) + earlier} shows them too, or "
                        f"page from the oldest with since={since} and limit")
    elif len(es) > len(shown):
        lines.insert(0, f"... {len(es) - len(shown)} earlier event(s) not shown")
    if later:
        lines.append(f"... {later} later event(s) not shown: pass since={es[-1].seq} for the next ones")
    else:
        lines.append(f"(pass since={es[-1].seq} to see only newer events)")
    return "\n".join(lines)


def log_where(loc: CodeLocation, thread: str | None) -> tuple[str, dict[str, Any]]:
    """The part of every log line that says where it fired: " — at Invoice.normalise:40 [main]", and its
    structured form (the history record's data). Round-trip and in-JVM logpoints end their lines alike."""
    where = f"{loc.class_name.rpartition('.')[2]}.{loc.method}:{loc.line}"
    text = f" — at {where}" + (f" [{thread}]" if thread else "")
    return text, {"location": loc.to_dict(), "where": where, "thread_name": thread}


MAX_NEWS = 10


def since_last_answer(start: int, records: Sequence[EventRecord], limit: int = MAX_NEWS) -> str:
    """The end of a stop answer: what was logged and what happened on the way, capped, with how to see the rest."""
    if not records:
        return ""
    lines = [f"since the last answer ({len(records)} event{'s' if len(records) != 1 else ''}):"]
    lines += [f"  #{e.seq} {e.kind}: {clip(e.text)}" for e in records[:limit]]
    if len(records) > limit:
        lines.append(f"  … {len(records) - limit} more: events since={records[limit - 1].seq}")
    return "\n".join(lines)


def output(chunks: Sequence[OutputChunk]) -> str:
    parts = []
    for c in chunks:
        head = f"--- {c.stream} [{c.start}..{c.end})"
        if c.dropped:
            head += f" ({c.dropped} chars dropped)"
        parts.append(head + (" (nothing new)" if not c.text else "") + "\n" + c.text.rstrip("\n"))
    return "\n".join(p.rstrip("\n") for p in parts) if parts else "no output"


# -- source --------------------------------------------------------------------------------------------


def source_view(src: SourceView) -> str:
    head = src.path or src.class_name
    body = src.render()
    if head and src.lines:
        return f"{head}\n{body}"
    return body


# -- watchers (a snapshot lists them) ----------------------------------------------------------------


MAX_WATCH_HISTORY = 6


def watch(w: WatchInfo) -> str:
    at = f" [at {w.breakpoint}]" if w.breakpoint else ""
    val = f"error: {w.error}" if w.error else (value(w.value) if w.value is not None else "(not evaluated yet)")
    return f"{w.id} {w.expression} = {val}{' (changed)' if w.changed else ''}{at}" + watch_history(w)


def watch_history(w: WatchInfo, limit: int = MAX_WATCH_HISTORY) -> str:
    """The values of the last stops, oldest first, repeats counted: "; history: 10 ×2 → 20 → 30"."""
    if len(w.history) < 2:
        return ""
    runs: list[list[Any]] = []  # [text, count]
    for sample in w.history:
        text = clip("error" if sample.error else sample.text, 40)
        if runs and runs[-1][0] == text:
            runs[-1][1] += 1
        else:
            runs.append([text, 1])
    shown = runs[-limit:]
    parts = [text + (f" ×{count}" if count > 1 else "") for text, count in shown]
    older = "… → " if len(runs) > len(shown) else ""
    return f"; history ({len(w.history)} stops): {older}" + " → ".join(parts)


# -- snapshot (the one-call picture of a stop) ---------------------------------------------------------------


def snapshot(snap: Snapshot, reason: StopReason | None = None) -> str:
    """Reason, source around the line, top frames, locals of the top frame, watchers, what changed."""
    reason = snap.stop or reason
    if reason is None and snap.state is SessionState.DISCONNECTED:
        return "DISCONNECTED — no JVM is attached: call attach or launch"
    if reason is None and snap.state is SessionState.RUNNING:
        return "RUNNING — nothing to show until it stops: call pause, or wait_for_stop"
    parts: list[str] = [stop(reason) if reason is not None else snap.state.value]
    if snap.source is not None and snap.source.lines:
        parts.append(source_view(snap.source))
    elif snap.source is not None and snap.source.message:
        parts.append(snap.source.message)
    if snap.frames:
        parts.append("stack:\n" + frames(snap.frames, limit=MAX_FRAMES, with_locals=False))
        top = next((f for f in snap.frames if f.locals is not None), snap.frames[0])  # the program's frame
        if top.locals is not None:
            changed = set(snap.changed)
            for var in top.locals:
                if var.name in changed:
                    var.changed = True
            head = "locals:" if top.index == 0 else f"locals of #{top.index} {top.location.method}:"
            parts.append(head + "\n" + (variables(top.locals) if top.locals else "(none)"))
    if snap.watches:
        parts.append("watches:\n" + "\n".join(watch(w) for w in snap.watches))
    if snap.changed:
        parts.append("changed since last stop: " + ", ".join(snap.changed))
    parts.extend(other_stops(snap, reason))
    return "\n".join(parts)


def other_stops(snap: Snapshot, reason: StopReason | None) -> list[str]:
    """The other threads with a stop of their own (or inside a call), so a storm is seen whole; threads merely
    held by a suspend-all stop are left to status."""
    others = [t for t in snap.suspended if t.state != "held" and not (reason is not None and t.id == reason.thread_id)]
    if not others:
        return []
    lines = [f"other threads stopped ({len(others)}):"]
    for t in others[:10]:
        new = "" if t.delivered or t.state != "stopped" else " (not delivered yet)"
        lines.append(f"  {t.name or t.id}: {t.why}{new}")
    if len(others) > 10:
        lines.append(f"  … {len(others) - 10} more: status lists them all")
    return lines


