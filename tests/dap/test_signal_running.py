"""Issue 29, point 16: SIGTERM to `tracepilot dap` on stdio ends the JVM it launched while the program runs
(no stop at all: what an editor user has when they close the session), as closing stdin does. (A JVM held at a
suspend-all stop, and SIGHUP: test_doors_lifecycle.py.)"""

from __future__ import annotations

import asyncio
import signal

import pytest

from support.dap_launch import launched_playground
from support.processes import gone

from .raw_dap import RawDap

pytestmark = pytest.mark.timeout(60)


async def test_sigterm_ends_the_launched_running_jvm(java_classes, java_source_root, jdks, default_jdk):
    dap = await RawDap.stdio()
    async with launched_playground(dap, java_classes, jdks[default_jdk], sources=java_source_root) as pid:
        await dap.request("configurationDone")
        await dap.event("output")  # the program runs and prints
        dap.proc.send_signal(signal.SIGTERM)
        rc = await asyncio.wait_for(dap.proc.wait(), 30)
        err = await dap.stderr()
        assert rc == 128 + signal.SIGTERM and "Traceback" not in err, (rc, err[-2000:])
        assert await gone(pid), "the launched JVM outlived the adapter"
