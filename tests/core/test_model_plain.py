"""The plain form of model objects (to_dict: every stop is recorded with it) and the stop's headline, made
per kind. Pure data: no JVM is needed to check what a dataclass turns into."""

from tracepilot.core.model import (
    CodeLocation,
    ExceptionCause,
    ExceptionInfo,
    StopKind,
    StopReason,
    ValueView,
    to_dict,
)


def _where() -> CodeLocation:
    return CodeLocation(class_name="com.acme.Shop", method="buy", line=7, source_file="Shop.java")


def test_a_stop_becomes_plain_data_field_by_field():
    cause = ExceptionCause("java.io.IOException", None, "com.acme.Io.read(Io.java:3)")
    exception = ExceptionInfo("java.lang.IllegalStateException", "boom", "@4", _where(), None, False, [cause])
    stop = StopReason(StopKind.EXCEPTION, thread_id=1, thread_name="main", location=_where(), exception=exception,
                      also=["bp-2"], time=1.5)
    plain = to_dict(stop)
    assert list(plain)[:4] == ["kind", "thread_id", "thread_name", "location"]  # the fields' order
    assert plain["kind"] == "EXCEPTION" and plain["also"] == ["bp-2"] and plain["time"] == 1.5
    assert plain["location"]["line"] == 7 and plain["location"]["source_path"] is None
    assert plain["exception"]["causes"] == [{"class_name": "java.io.IOException", "message": None,
                                             "top_frame": "com.acme.Io.read(Io.java:3)"}]
    assert "target" not in plain  # an omit-none field, None: left out...
    stop.target = "server"
    assert to_dict(stop)["target"] == "server"  # ...and there once set
    assert to_dict({1: [StopKind.PAUSE, (2, "x")]}) == {"1": ["PAUSE", [2, "x"]]}


def test_each_kind_heads_its_stop_with_its_own_words():
    value = ValueView("int", "7")
    cases = [
        (StopReason(StopKind.BREAKPOINT, breakpoint_id="bp-1", hit_count=3), "breakpoint bp-1 (hit 3)"),
        (StopReason(StopKind.BREAKPOINT, run_to="Shop:9"), "run to Shop:9"),
        (StopReason(StopKind.STEP, returned_from="discount", return_value=value), "step; discount() returned 7"),
        (StopReason(StopKind.WATCHPOINT_MODIFY, field="Shop.total", old_value=value, new_value=value,
                    breakpoint_id="bp-4"), "write of Shop.total (7 -> 7) [bp-4]"),
        (StopReason(StopKind.METHOD_EXIT, breakpoint_id="bp-5", return_value=value), "method exit (bp-5), returning 7"),
        (StopReason(StopKind.VM_START), "VM start (nothing has run yet)"),
        (StopReason(StopKind.PAUSE, thread_name="main"), "paused, thread main"),
    ]
    for stop, words in cases:
        assert stop.headline().startswith("STOPPED — " + words), stop.headline()
    located = StopReason(StopKind.BREAKPOINT, location=_where(), breakpoint_id="bp-1", target="server")
    assert located.headline() == "STOPPED [server] at com.acme.Shop.buy(Shop.java:7) — breakpoint bp-1"
    assert StopReason(StopKind.VM_DEATH).headline() == "EXITED — the VM terminated"


def test_a_converter_keeps_the_fields_order_and_tests_only_fields_not_declared_plain():
    from dataclasses import dataclass, field

    from tracepilot.core.model import Model

    @dataclass
    class Mixed(Model):
        name: str
        kind: StopKind | None = None  # not plain: its enum becomes its value
        middle: str | None = field(default=None, metadata={"omit_none": True})  # left out while None...
        count: int = 0  # ...and the fields after it keep their place
        where: CodeLocation | None = None

    plain = to_dict(Mixed("a", StopKind.PAUSE, None, 3, _where()))
    assert list(plain) == ["name", "kind", "count", "where"]
    assert plain["kind"] == "PAUSE" and type(plain["kind"]) is str
    assert plain["where"]["class_name"] == "com.acme.Shop"
    assert list(to_dict(Mixed("b", middle="m"))) == ["name", "kind", "middle", "count", "where"]
