"""Issue 29, point 16: SIGTERM to `tracepilot dap` on stdio ends the JVM it launched while the program runs
(no stop at all: what an editor user has when they close the session), as closing stdin does. (A JVM held at a
suspend-all stop, and SIGHUP: test_doors_lifecycle.py.)"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from .raw_dap import RawDap
from .test_doors_lifecycle import alive, gone

pytestmark = pytest.mark.timeout(60)


async def test_sigterm_ends_the_launched_running_jvm(java_classes, java_source_root, jdks, default_jdk):
    dap = await RawDap.stdio()
    pid = None
    try:
        await dap.request("initialize", {"adapterID": "java", "linesStartAt1": True, "pathFormat": "path"})
        reply = await dap.request("launch", {"mainClass": "fixtures.Playground", "classPaths": [str(java_classes)],
                                             "args": ["100000"], "javaExec": jdks[default_jdk],
                                             "sourcePaths": [str(java_source_root)]})
        assert reply["success"], reply
        pid = (await dap.event("process"))["body"]["systemProcessId"]
        await dap.request("configurationDone")
        await dap.event("output")  # the program runs and prints
        dap.proc.send_signal(signal.SIGTERM)
        rc = await asyncio.wait_for(dap.proc.wait(), 30)
        err = await dap.stderr()
        assert rc == 128 + signal.SIGTERM and "Traceback" not in err, (rc, err[-2000:])
        assert await gone(pid), "the launched JVM outlived the adapter"
    finally:
        if pid is not None and alive(pid):
            os.kill(pid, signal.SIGKILL)
        await dap.close()
