"""Issue 25 point 9 at the DAP door: SIGTERM or SIGHUP to `tracepilot dap` ends the JVM it launched (even one
held at a suspend-all stop), as a closed connection does; `disconnect {"terminateDebuggee": false}` on a
launched JVM detaches and leaves it running instead of killing it."""

from __future__ import annotations

import asyncio
import os
import re
import signal

import pytest

from support.dap_launch import launched_playground
from support.processes import alive, gone

from .raw_dap import RawDap

pytestmark = pytest.mark.timeout(90)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
async def test_a_signal_ends_the_launched_jvm(signum, java_classes, java_source_root, line_of, jdks, default_jdk):
    dap = await RawDap.stdio()
    async with launched_playground(dap, java_classes, jdks[default_jdk], sources=java_source_root) as pid:
        source = str(java_source_root / "fixtures" / "Playground.java")
        await dap.request("setBreakpoints", {"source": {"path": source},
                                             "breakpoints": [{"line": line_of("loop-body")}]})
        await dap.request("configurationDone")
        assert (await dap.event("stopped"))["body"]["allThreadsStopped"]  # every thread held
        dap.proc.send_signal(signum)
        rc = await asyncio.wait_for(dap.proc.wait(), 30)
        err = await dap.stderr()
        assert rc == 128 + signum and "Traceback" not in err, (rc, err[-2000:])
        assert await gone(pid), "the launched JVM outlived the adapter"


async def test_disconnect_without_terminate_leaves_a_launched_jvm_running(run_scenario, default_jdk):
    out = run_scenario("launch_detach", default_jdk)
    pid = int(re.search(r"pid (\d+)", out).group(1))
    try:
        await asyncio.sleep(1.0)  # the adapter has exited (run_scenario waited for it): the JVM must not follow
        assert alive(pid), "disconnect {terminateDebuggee: false} killed the launched JVM"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


async def test_sigterm_to_the_tcp_adapter_ends_its_clients_launched_jvm(
        share_dir, java_classes, java_source_root, line_of, jdks, default_jdk):
    from .test_doors_tcp import TcpAdapter

    adapter = await TcpAdapter.start(share_dir=share_dir)
    try:
        dap = await RawDap.tcp(adapter.port)
        async with launched_playground(dap, java_classes, jdks[default_jdk], token=adapter.token) as pid:
            await dap.request("configurationDone")
            adapter.proc.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(adapter.proc.wait(), 30) == 128 + signal.SIGTERM
            assert await gone(pid), "the launched JVM outlived the adapter"
            assert not adapter.token_file.exists()
    finally:
        await adapter.stop()
