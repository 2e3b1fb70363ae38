"""`tracepilot demo` in a real terminal, driven as a person would: tmux send-keys, read back with
capture-pane (issue 22). Walks the demo at 80x24 (the smallest usual terminal): focus Variables by its key, open an object with Right,
open a long value whole, step, run to the end and restart.

Needs tmux (Debian: apt-get install tmux; scripts/bootstrap.sh installs it in CI) and a JDK."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from support.jvm import demo_line_of as demo_line

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(shutil.which("tmux") is None,
                       reason="tmux is not installed (apt-get install tmux): the terminal walk-through needs it"),
]

NOTE_END = "the dog barks at couriers."  # the end of the demo's delivery note: past any pane's edge


class Terminal:
    """One tmux server of our own (a private socket), one window running tracepilot."""

    def __init__(self, command: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        self.socket = f"tracepilot-test-{uuid.uuid4().hex[:8]}"
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        line = f"env {exports} {' '.join(_quote(c) for c in command)}"
        self._tmux("new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]), line)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True,
                              text=True, timeout=20)
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr}")
        return done.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:  # one at a time, as typed (a burst may reach the app as one paste)
            self._tmux("send-keys", "-t", "t", key)
            time.sleep(0.05)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, condition, what: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.screen()
            if condition(text):
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; the screen:\n{text}")
            time.sleep(0.05)  # (a screen read is a ~5 ms tmux call; a terminal has no event to await)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def status_line(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def variable_rows(screen: str) -> list[str]:
    """The rows of the variables tree (below the tab bar, above the command line)."""
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if "2:Variables" in line) + 2
    return [line.lstrip("▌ ") for line in lines[start:-2]]


def boxed_text(screen: str) -> str:
    """The words in the value box's text area (between its ▊ and ▎ edges), joined as one line."""
    lines = [line.split("▊", 1)[1].rsplit("▎", 1)[0] for line in screen.splitlines() if "▊" in line and "▎" in line]
    return " ".join(" ".join(lines).replace("▔", " ").replace("▁", " ").split())


@pytest.fixture
def demo(tmp_path):
    env = {"TRACEPILOT_SHARE_DIR": str(tmp_path / "share"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "TERM": "xterm-256color", "PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    for name in ("JAVA_HOME",):
        if os.environ.get(name):
            env[name] = os.environ[name]
    terminal = Terminal([sys.executable, "-m", "tracepilot.cli", "demo"], env, (80, 24))
    try:
        yield terminal
    finally:
        terminal.close()


def test_a_person_walks_the_demo_in_a_terminal(demo):
    process, ship = demo_line("process"), demo_line("ship")
    screen = demo.wait_for(lambda s: f"ShopDemo.main:{process}" in status_line(s) and "order =" in s,
                           "the demo stopped at its first breakpoint, locals shown", timeout=90)
    assert status_line(screen).lstrip().startswith("STOPPED")
    assert "try: F10" in screen  # the one-line hint

    # focus Variables by its key; go down to `order`; Right opens it (fields appear)
    demo.keys("2")
    rows = variable_rows(screen)
    order_row = next(i for i, row in enumerate(rows) if row.lstrip("▶▼ ").startswith("order ="))
    demo.keys(*["Down"] * order_row, "Right")
    demo.wait_for(lambda s: any(row.lstrip("├└│ ").startswith("id = 1") for row in variable_rows(s)),
                  "order's fields after Right")

    # into the fields (id, customer, items, note), down to the note: cut at the pane's edge
    demo.keys("Right", "Down", "Down", "Down")
    screen = demo.wait_for(lambda s: any(row.lstrip("├└│ ").startswith("note = ") for row in variable_rows(s)),
                           "the note's row")
    assert NOTE_END not in screen
    demo.keys("Enter")  # Enter on a value: the whole of it, wrapped at words in a box
    screen = demo.wait_for(lambda s: "128 characters" in s and NOTE_END in boxed_text(s), "the value shown whole")
    assert boxed_text(screen).startswith("Leave the parcel with the neighbour")
    demo.keys("Escape")
    demo.wait_for(lambda s: "c: copy" not in s, "the value closed")

    # step over (F10): the next line, the program still there
    demo.keys("1", "F10")
    demo.wait_for(lambda s: f"ShopDemo.main:{ship}" in status_line(s), "a step to the next line")

    # run on: the breakpoint stops at each order; at the last one the uncaught NullPointerException stops the
    # program where it is thrown (the default), instead of ending it
    for order in (2, 3, 4):
        demo.keys("F5")
        demo.wait_for(lambda s, n=order: f"order = ShopDemo$Order{{id={n}," in s
                      and f"ShopDemo.main:{process}" in status_line(s), f"order #{order}")
    demo.keys("F5")
    screen = demo.wait_for(lambda s: "NullPointerException" in status_line(s), "the NPE", timeout=90)
    # run on again: the program ends; the footer offers Restart and no stepping
    demo.keys("F5")
    # (the status bar and the footer are painted on separate refreshes: wait for the footer's own change)
    screen = demo.wait_for(lambda s: "EXITED" in status_line(s) and "Restart" in s.splitlines()[-1],
                           "the program's end, with Restart in the footer")
    footer = screen.splitlines()[-1]
    assert "Restart" in footer and "F10" not in footer and "F5" not in footer

    # restart: the same program, stopped at the same first breakpoint again
    demo.keys("C-r")
    screen = demo.wait_for(lambda s: f"ShopDemo.main:{process}" in status_line(s)
                           and "STOPPED" in status_line(s), "restarted at the first breakpoint", timeout=90)
    demo.keys("q")
    demo.wait_for(lambda s: "Quit and end it?" in s or "still running" in s, "quit asks about the running program")
    demo.keys("y")
