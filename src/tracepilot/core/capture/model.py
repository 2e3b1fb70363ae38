"""What a capture holds: the values at the hit, frozen (never handles to read later), and every cut said."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import CodeLocation, Model


@dataclass
class CaptureLimits(Model):
    """How much a capture reads; each raisable per point (breakpoint_set capture_depth=... and so on)."""

    depth: int = 2  # levels of objects opened below a variable (its fields, elements, entries)
    items: int = 20  # elements or entries of a collection, map or array (its logical view, as `inspect`)
    chars: int = 200  # characters of a string
    fields: int = 20  # fields of an object
    # Top frames whose arguments and locals are read (`this` is opened in the top frame). 1: the probe that
    # takes a capture in the JVM sees only its own caller's variables, and a capture must read the same either
    # way (in the JVM or by round trip); more reads the callers' too, with the thread held at each capture.
    frames: int = 1
    values: int = 300  # values one capture reads at most, top frame first (a framework's objects fan out fast)
    # Open the fields of JDK classes no logical view covers (a ClassLoader's, a Thread's, a lock's): closed to
    # the in-JVM copy, so such captures hold the thread. Off: they are one cut (capture/jdk_fields.py).
    jdk_internals: bool = False


def in_order(cuts: list[str]) -> list[str]:
    """A capture's cuts in one order whichever way it was read (values are read concurrently): by frame, then
    by what was cut; the expressions' after the frames'."""
    def key(cut: str) -> tuple[int, int, str]:
        found = _FRAME_CUT.match(cut)
        return (0, int(found.group(1)), cut) if found else (1, 0, cut)
    return sorted(cuts, key=key)


_FRAME_CUT = re.compile(r"frames? (\d+)")


def frames_cut(limit: int, count: int) -> str | None:
    """The cut of a capture of `count` frames whose top `limit` have their variables read; the same text
    whichever way the capture was taken."""
    if count <= limit:
        return None
    first, last = limit, count - 1
    span = f"frame {first}" if first == last else f"frames {first}-{last}"
    return f"{span}: arguments and locals not captured (capture_limits frames={limit}; more holds the thread)"


@dataclass
class CapturedValue(Model):
    """One value as it was at the hit: its summary, and (below the depth limit) what it holds."""

    name: str
    type: str
    text: str
    kind: str = "primitive"  # as ValueView.kind
    children: list[CapturedValue] = field(default_factory=list)
    cut: str | None = None  # what a limit left out, and how much there was ("20 of 35 elements")


@dataclass
class CapturedFrame(Model):
    index: int
    location: CodeLocation
    locals: list[CapturedValue] | None = None  # arguments first, then locals; None below the top frames


@dataclass
class Capture(Model):
    """One capture of a capture point."""

    seq: int  # the session's capture number (1, 2, ...) in the order they were added: `captures since=` it
    breakpoint_id: str
    number: int  # this point's n-th capture
    time: float
    thread_id: int
    thread_name: str
    hit: int  # the breakpoint's hit count at the capture
    via: str  # "in-JVM" or "round trip"
    frames: list[CapturedFrame] = field(default_factory=list)
    expressions: list[CapturedValue] = field(default_factory=list)
    cuts: list[str] = field(default_factory=list)  # every limit that cut something, where
    skipped: int = 0  # hits of the point the rate limit let by without a capture, up to this one
    note: str | None = None  # what went wrong while reading (a condition error, an unreadable frame)
    took_ms: float = 0.0  # how long the thread was held
    copy: str | None = None  # how the values were read: copied in the JVM by one call, or over JDWP (and why)

    @property
    def location(self) -> CodeLocation | None:
        return self.frames[0].location if self.frames else None

    def headline(self) -> str:
        loc = self.location
        where = f"{loc.class_name.rpartition('.')[2]}.{loc.method}:{loc.line}" if loc else "?"
        return (f"capture {self.breakpoint_id} #{self.number} at {where} [{self.thread_name}] (hit {self.hit}, "
                f"{self.via}, held {self.took_ms:.1f} ms)")


@dataclass
class CaptureState(Model):
    """A capture point's settings and progress, as breakpoint_list shows them."""

    limit: int  # captures it takes, then it is done
    taken: int = 0
    skipped: int = 0  # hits the rate limit let by without a capture
    rate: float = 100.0  # captures a second at most
    expressions: list[str] = field(default_factory=list)
    limits: CaptureLimits = field(default_factory=CaptureLimits)
    done: bool = False
    path: str | None = None  # in-JVM points: how their captures are taken (without holding the thread, or why not)

    def describe(self) -> str:
        text = f"capture {self.taken}/{self.limit}" + (" done" if self.done else "")
        if self.skipped:
            text += f", {self.skipped} hit(s) skipped by the rate limit ({self.rate:g}/s)"
        if self.path:
            text += f", {self.path}"
        return text
