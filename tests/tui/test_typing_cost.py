"""A key on the command line costs the command line, not the screen or the JVM: it repaints that one row (no
layout of the whole screen, no scroll view repainting its scrollbars), and its suggestion reads the VM once
per stop, not once per key (benchmarks/bench_typing.py measures the milliseconds). A key that moves the focus
restyles the panes it concerns, not the whole screen."""

from __future__ import annotations

import pytest
from textual.widget import Widget

from tracepilot.jdwp.connection import JdwpConnection
from tracepilot.tui.widgets.command_line import CommandLine

from .helpers import wait_for
from .test_keyboard import WIDE, attached, stop_at_line

pytestmark = pytest.mark.timeout(60)


async def test_a_key_repaints_the_line_and_asks_the_vm_nothing_new(jvm_factory, java_source_root, line_of,
                                                                     monkeypatch):
    sent: list[str] = []
    repainted: list[str] = []
    send, render = JdwpConnection.send_nowait, Widget.render_lines

    def counted_send(conn, command, *args, **kwargs):
        sent.append(getattr(command, "name", str(command)))
        return send(conn, command, *args, **kwargs)

    def counted_render(widget, crop):
        repainted.append(type(widget).__name__)
        return render(widget, crop)

    monkeypatch.setattr(JdwpConnection, "send_nowait", counted_send)
    monkeypatch.setattr(Widget, "render_lines", counted_render)
    app = attached(jvm_factory("Playground", "1000").address, java_source_root)
    async with app.run_test(size=WIDE) as pilot:
        await stop_at_line(pilot, app, line_of("loop-body"))
        # a key that moves the focus restyles the widgets a :focus-within rule names, not the whole screen
        # (Textual restyles everything under the outermost widget such a rule may match: `*` matched all)
        within = {type(n).__name__ for n in app.screen.walk_children(with_self=True) if n._has_focus_within}  # noqa: SLF001
        assert within <= {"TabbedContent", "ContentTab", "EventsPane"}, within
        command = app.query_one(CommandLine)
        await pilot.press("colon", *"print p.name.le")
        await wait_for(pilot, lambda: command._suggestion == "print p.name.length(",  # noqa: SLF001
                       what="String's method suggested")
        await app.workers.wait_for_complete()
        assert sent  # what the names and p.name are was read (once) at this stop

        sent.clear()
        repainted.clear()
        await pilot.press("n", *["backspace"] * 6)
        await wait_for(pilot, lambda: command._suggestion == "print p.name",  # noqa: SLF001
                       what="p's field suggested")
        await app.workers.wait_for_complete()
        assert command.value == "print p.na"
        assert sent == []  # the same stop: nothing to ask the VM again
        assert "ScrollBar" not in repainted and "SourceView" not in repainted, set(repainted)

        # a new stop is a new moment: the suggestion reads the new frame again
        await pilot.press("escape")
        app.query_one("#source").focus()
        await pilot.press("f10")
        await wait_for(pilot, lambda: app.view.status.stop.location.line == line_of("loop-static"), what="stepped")
        sent.clear()
        await pilot.press("colon", *"print p.na")
        await wait_for(pilot, lambda: command._suggestion == "print p.name", what="suggested again")  # noqa: SLF001
        assert "StackFrame.GetValues" in sent or "ObjectReference.GetValues" in sent, sent
