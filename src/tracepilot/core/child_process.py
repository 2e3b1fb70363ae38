"""A child process the debugger can let go of: the launched JVM.

asyncio's own subprocess transport kills a child still running when the transport is closed or collected, and
its exit callback breaks if one stops it from doing so. A launched JVM may be left running (a detach that keeps
it: DAP terminateDebuggee: false), so it is started with plain `subprocess` instead and watched with public
pieces only:
- its output is read through the event loop's read pipes until EOF (while the loop runs);
- its exit is awaited by a daemon thread that only waits (`Popen.wait`): it reaps the process whenever it
  ends, tells the loop if the loop is still there, and never holds up the debugger's own exit;
- it is killed only when asked (`kill`); it stays in the debugger's process group (OWN_GROUP), so a closed
  terminal ends it as it ends the debugger.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence

# The child stays in the debugger's process group, as before: a closed terminal (SIGHUP to its foreground group)
# ends the launched program with the debugger, where a group of its own left it running, orphaned (a TUI killed
# with its tmux session). The price, as before: Ctrl+C in the terminal reaches the program too. (0: a group of
# its own, which a front end may choose once it ends its JVMs on SIGHUP itself.)
OWN_GROUP: int | None = None


class _PipeReader(asyncio.Protocol):
    """Hands a pipe's text to `write` as it comes (UTF-8 split across reads decodes whole); `done` at EOF."""

    def __init__(self, write: Callable[[str], None], done: asyncio.Future[None]) -> None:
        self._write = write
        self._done = done
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def data_received(self, data: bytes) -> None:
        if text := self._decoder.decode(data):
            self._write(text)

    def connection_lost(self, exc: Exception | None) -> None:
        if text := self._decoder.decode(b"", final=True):
            self._write(text)
        if not self._done.done():
            self._done.set_result(None)


class ChildProcess:
    """A started child: `exited` (its exit code) and `output_done` (both pipes at EOF) complete on the loop that
    started it; the child is never killed unless `kill` is called."""

    def __init__(self, popen: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop) -> None:
        self._popen = popen
        self._loop = loop
        self.exited: asyncio.Future[int] = loop.create_future()
        self._pipes: list[asyncio.Future[None]] = []
        self._readers: list[asyncio.BaseTransport] = []

    @classmethod
    async def start(cls, command: Sequence[str], *, cwd: str | None, env: Mapping[str, str] | None,
                    on_stdout: Callable[[str], None], on_stderr: Callable[[str], None]) -> ChildProcess:
        """Start `command` (stdin from /dev/null; raises OSError when it cannot start)."""
        loop = asyncio.get_running_loop()
        popen = subprocess.Popen(list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL,  # noqa: S603
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=OWN_GROUP)
        child = cls(popen, loop)
        threading.Thread(target=child._wait, name=f"tracepilot-wait-{popen.pid}", daemon=True).start()
        for pipe, write in ((popen.stdout, on_stdout), (popen.stderr, on_stderr)):
            done: asyncio.Future[None] = loop.create_future()
            child._pipes.append(done)
            try:
                transport, _ = await loop.connect_read_pipe(lambda w=write, d=done: _PipeReader(w, d), pipe)
            except BaseException:
                child.kill()
                child.stop_reading()
                for unread in (popen.stdout, popen.stderr):
                    if unread is not None:
                        unread.close()
                raise
            child._readers.append(transport)
        return child

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the loop was told of the exit (None while it runs)."""
        return self.exited.result() if self.exited.done() else None

    async def output_done(self) -> None:
        """Both pipes read to their end (the program and anything it started closed them)."""
        await asyncio.gather(*self._pipes)

    def stop_reading(self) -> None:
        """Close our ends of its pipes (the loop is ending while it still runs); the child is not signalled."""
        for transport in self._readers:
            transport.close()

    def kill(self) -> None:
        """SIGKILL the child if it still runs (the waiting thread reaps it)."""
        with contextlib.suppress(ProcessLookupError):
            self._popen.kill()  # (a no-op once it was reaped)

    def _wait(self) -> None:
        """The waiting thread: reap the child whenever it ends, then tell the loop if it still runs."""
        code = self._popen.wait()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
            self._loop.call_soon_threadsafe(self._exit, code)

    def _exit(self, code: int) -> None:
        if not self.exited.done():
            self.exited.set_result(code)
