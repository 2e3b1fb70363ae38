"""A capture point's rate limit is one token bucket, whichever side takes its hits.

By round trip (--no-instrument) a point has one bucket for its whole life: an update of its hit count or its
condition does not refill it. In the JVM the take class keeps the bucket of a point bound there (its TOKENS,
and STAMP: when they were worked out, in the JVM's System.nanoTime), the debugger keeps it for the hits it
takes itself (a point by round trip until its move into the JVM, again after an update reinstalls it, a hit
handed over by the probe). So the bucket goes with the hits: the debugger's is written into the JVM when the
point is bound there, and read back from it before the debugger takes a hit of a point that was (a capture
taken in the JVM is not taken again by round trip after an update: with `capture_limits` rate 0.1 that one
capture is the last for ten seconds, as by round trip).

The two clocks are mapped by one System.nanoTime() call in the JVM, once per VM, while the take class is
defined (a thread is held then); without it a bucket read back counts its refill from the moment it is read
(a little less than the JVM's: never a capture the round trip would not take for that reason)."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from ...jdwp import ArrayReference, ClassType, InvokeOptions, JdwpError, Tag, VirtualMachine
from ...jdwp.wire import Value
from ..errors import DebuggerError
from ..rate import TokenBucket

log = logging.getLogger(__name__)

CALL_TIMEOUT = 5.0  # seconds System.nanoTime() may take on the held thread (never, unless the VM is wedged)


class SharedBuckets:
    """The rate-limit buckets of the points bound in one JVM's take class, kept in step with the debugger's."""

    def __init__(self) -> None:
        self.offset_ns: int | None = None  # the JVM's System.nanoTime() - this side's time.monotonic_ns()
        self.in_jvm: set[int] = set()  # points whose bucket the JVM may have moved since the debugger wrote it

    def reset(self) -> None:
        """A new VM (a new take class's arrays): nothing shared yet, its clock unknown."""
        self.offset_ns, self.in_jvm = None, set()

    async def measure(self, session: Any, vm: Any, thread: int) -> None:
        """The JVM's clock against this one: System.nanoTime() on held `thread`, taken as read halfway through
        the call (booked as the session's calls are: the thread book knows the thread is inside a call)."""
        what = "reading the JVM's clock for the capture points' rate limits"
        try:
            system = (await vm.send(VirtualMachine.ClassesBySignature, "Ljava/lang/System;")).classes[0].type_id
            nano = next(m.id for m in await vm.methods(system) if m.name == "nanoTime" and m.signature == "()J")
            call = (system, thread, nano, [], int(InvokeOptions.SINGLE_THREADED))
            invoking = getattr(session, "invoking", None)
            before = time.monotonic_ns()
            if invoking is None:
                reply = await asyncio.wait_for(vm.send(ClassType.InvokeMethod, *call), CALL_TIMEOUT)
            else:
                async with invoking(thread, what) as booked:
                    reply = await booked.send(ClassType.InvokeMethod, *call, timeout=CALL_TIMEOUT, what=what)
            after = time.monotonic_ns()
        except (DebuggerError, JdwpError, TimeoutError, StopIteration, IndexError) as exc:
            log.debug("the JVM's System.nanoTime() could not be read: %s", exc)
            return
        if not reply.exception.value:
            self.offset_ns = reply.return_value.value - (before + after) // 2

    def values(self, bucket: TokenBucket) -> tuple[Value, Value]:
        """TOKENS and STAMP that carry `bucket` on in the JVM (STAMP 0: its tokens as of its first hit there)."""
        stamp = 0 if self.offset_ns is None else (int(bucket.stamp * 1e9) + self.offset_ns) or 1
        return Value(Tag.DOUBLE, bucket.tokens), Value(Tag.LONG, stamp)

    async def write(self, vm: Any, arrays: dict[str, int], point: int, bucket: TokenBucket) -> None:
        tokens, stamp = self.values(bucket)
        await vm.send(ArrayReference.SetValues, arrays["TOKENS"], point, [tokens])
        await vm.send(ArrayReference.SetValues, arrays["STAMP"], point, [stamp])
        self.in_jvm.add(point)

    async def read(self, vm: Any, arrays: dict[str, int], point: int, bucket: TokenBucket) -> None:
        """`bucket` as the JVM left it, when the JVM may have taken from it since it was written there."""
        if point not in self.in_jvm:
            return
        try:
            tokens = (await vm.send(ArrayReference.GetValues, arrays["TOKENS"], point, 1)).values[0].value
            stamp = (await vm.send(ArrayReference.GetValues, arrays["STAMP"], point, 1)).values[0].value
        except JdwpError as exc:
            log.debug("reading a capture point's rate limit in the JVM: %s", exc)
            return
        now = time.monotonic()
        if stamp == 0:  # (no hit in the JVM since it was written: the debugger's own, as it was)
            return
        bucket.tokens = min(bucket.capacity, tokens)
        bucket.stamp = now if self.offset_ns is None else min(now, (stamp - self.offset_ns) / 1e9)

