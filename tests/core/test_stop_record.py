"""A stop's history record makes its text and plain form when first read (history.StopRecord): it must read as
the record made at once would, whatever happens to the stop afterwards. Pure data: no JVM is needed."""

from __future__ import annotations

import dataclasses

from tracepilot.core.history import EventHistory, StopRecord
from tracepilot.core.model import Actor, CodeLocation, StopKind, StopReason, to_dict
from tracepilot.core.secrets import redact_outgoing


def _stop() -> StopReason:
    where = CodeLocation(class_name="com.acme.Shop", method="buy", line=7, source_file="Shop.java")
    return StopReason(StopKind.BREAKPOINT, thread_id=1, thread_name="main", location=where, breakpoint_id="bp-1",
                      hit_count=2, time=1.5)


def test_a_stop_record_reads_as_the_record_made_at_once():
    stop = _stop()
    lazy, eager = EventHistory(), EventHistory()
    made = lazy.add_stop(stop)
    at_once = eager.add("stop", stop.headline(), Actor.TARGET, stop=stop.to_dict())
    assert isinstance(made, StopRecord)
    assert (made.seq, made.kind, made.actor, made.text, made.data) == \
        (at_once.seq, at_once.kind, at_once.actor, at_once.text, at_once.data)
    assert {k: v for k, v in to_dict(made).items() if k != "time"} == \
        {k: v for k, v in to_dict(at_once).items() if k != "time"}
    assert lazy.since(0)[0] is made


def test_a_stop_changed_after_its_record_leaves_the_record_as_it_was():
    stop = _stop()
    record = EventHistory().add_stop(stop)
    stop.location = CodeLocation(class_name="com.acme.Shop", method="pay", line=9, source_file="Shop.java")  # a pop
    stop.target = "server"
    assert "Shop.buy(Shop.java:7)" in record.text and "[server]" not in record.text
    assert record.data["stop"]["location"]["method"] == "buy" and "target" not in record.data["stop"]


def test_a_stop_record_is_replaced_and_redacted_as_any_record():
    record = EventHistory().add_stop(_stop())
    renamed = dataclasses.replace(record, text="STOPPED elsewhere")
    assert renamed.text == "STOPPED elsewhere" and renamed.data == record.data and renamed.seq == record.seq
    redacted = EventHistory(redactor=redact_outgoing).add_stop(_stop())
    assert redacted.text.startswith("STOPPED at com.acme.Shop.buy")
