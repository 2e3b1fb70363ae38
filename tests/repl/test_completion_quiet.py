"""Completion runs on every key the TUI command line gets (issue 22 item 4): it must record nothing in the
shared history that agents and watchers read, and change nothing in the target (no invocation, no object
created, no value set, no request installed). Checked on a real JVM by watching every JDWP command sent."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(90)

# JDWP commands that run code in the target or change its state: none may go out while completing.
CHANGING = ("Invoke", "NewInstance", "SetValues", "CreateString", "EventRequest.", "Resume", "Suspend",
            "DisableCollection", "ForceEarlyReturn", "PopFrames", "RedefineClasses")


async def test_completion_records_no_event_and_changes_nothing_in_the_target(drive, line_of, monkeypatch):
    await drive.attach("Playground", "50")
    await drive(f"stop at fixtures.Playground:{line_of('loop-body')}")
    await drive("cont")
    history = drive.debugger.history
    conn = drive.debugger.session.conn
    sent: list[str] = []
    real_send = conn.send

    async def spying_send(command, *args, **kwargs):
        sent.append(getattr(command, "name", str(command)))
        return await real_send(command, *args, **kwargs)

    monkeypatch.setattr(conn, "send", spying_send)
    before = history.last_seq

    # what a person types, key by key, in `print p.name.len` (the TUI suggests after each key)
    line = "print p.name.len"
    answers = {}
    for end in range(len("print p"), len(line) + 1):
        answers[line[:end]] = await drive.complete(line[:end])
    assert "name" in answers["print p.na"]
    assert "counter" in answers["print p."] and "compute(" in answers["print p."]
    assert "length(" in answers["print p.name.len"]  # fields and methods of the runtime type, String
    assert "fixtures.Playground.compute" in await drive.complete("stop in fixtures.Playground.comp")
    await drive.complete("print p.compute(1).")  # names a call: completes to nothing, and calls nothing
    await drive.complete("display p.co")
    await drive.complete("dump $nosuchmark.")

    assert history.last_seq == before, [r.text for r in history.since(before)]
    assert sent, "the spy saw no command: completion did not reach the VM"
    changing = [name for name in sent if any(word in name for word in CHANGING)]
    assert changing == [], changing

    # the same completion outside this test's spy is still a plain read: evaluate records, completion doesn't
    monkeypatch.undo()
    await drive("print p.counter")
    assert history.last_seq > before
