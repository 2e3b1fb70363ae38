"""Values at a stop: primitives, strings (long, NUL, emoji), arrays, records, enums, collections, maps
(10,000 entries, paged), logical views; evaluate and set_value; handles; redaction."""

from __future__ import annotations

import pytest
from _inspect_support import stop_at

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import NotFound

pytestmark = pytest.mark.timeout(90)


async def test_locals_of_every_kind(debugger, jvm_factory, line_of, jdk):
    await stop_at(debugger, jvm_factory, "Values", line_of("values"), jdk=jdk)
    v = {x.name: x for x in await debugger.locals()}
    assert v["args"].kind == "argument" and v["args"].value.text == "java.lang.String[0]"
    assert v["b"].value.text == "true" and v["b"].value.type == "boolean"
    assert v["by"].value.text == "-7"
    assert v["c"].value.text == "'Z'"
    assert v["sh"].value.text == "1234"
    assert v["i"].value.text == "42" and v["i"].kind == "local"
    assert v["l"].value.text == "9000000000"
    assert v["f"].value.text == "3.5" and v["f"].value.type == "float"
    assert v["d"].value.text == "2.718281828"
    assert v["nullString"].value.text == "null" and v["nullString"].value.type == "java.lang.String"
    assert v["ints"].value.text == "int[5] [1, 2, 3, 4, 5]" and v["ints"].value.size == 5
    assert v["objs"].value.text == 'java.lang.Object[4] ["s", 1, null, Values$Point[x=1, y=2]]'
    assert v["point"].value.kind == "record" and v["point"].value.text == "Values$Point[x=3, y=4]"
    assert v["color"].value.kind == "enum" and v["color"].value.text == "GREEN"
    assert v["list"].value.text == 'ArrayList(size=3) ["alpha", "beta", "gamma"]'
    assert v["present"].value.text == 'Optional["here"]'
    assert v["empty"].value.text == "Optional.empty"
    assert v["sb"].value.text == 'StringBuilder["built"]'
    assert v["money"].value.text == "12345.6789"
    assert v["atomic"].value.text == "17"
    assert v["date"].value.text == "2024-02-29"
    assert v["bigMap"].value.kind == "map" and v["bigMap"].value.size == 10_000
    assert v["bigMap"].value.text.startswith('HashMap(size=10000) {0="v0", 1="v1",')
    handles = [x.value.handle for x in v.values() if x.value.handle]
    assert len(handles) == len(set(handles)) and all(h.startswith("@") for h in handles)


async def test_strings_long_nul_and_emoji(debugger, jvm_factory, line_of, jdk):
    await stop_at(debugger, jvm_factory, "Values", line_of("values"), jdk=jdk)
    v = {x.name: x.value for x in await debugger.locals()}
    huge = v["huge"]
    assert huge.size == 100_000 and "(100000 chars)" in huge.text and len(huge.text) < 400
    weird = v["weird"]
    assert weird.text == '"a\\u0000b😀"' and weird.size == 5  # UTF-16 length, as String.length()
    page = await debugger.inspect("weird")
    assert page.string == "a\x00b😀"
    whole = await debugger.inspect("huge", start=0, count=0)
    assert whole.total == 100_000 and whole.string == "x" * len(whole.string) and whole.more
    tail = await debugger.inspect("huge", start=99_990)
    assert tail.string == "x" * 10 and not tail.more


async def test_hashmap_of_10000_entries_is_paged(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Values", line_of("values"))
    first = await debugger.inspect("bigMap", count=25)
    assert first.total == 10_000 and len(first.entries) == 25 and first.more
    assert [(e.key.text, e.value.text) for e in first.entries[:2]] == [("0", '"v0"'), ("1", '"v1"')]
    last = await debugger.inspect("bigMap", start=9_990, count=50)
    assert len(last.entries) == 10 and not last.more
    assert {e.key.text for e in last.entries} == {str(k) for k in range(9_990, 10_000)}
    assert all(e.value.text == f'"v{e.key.text}"' for e in last.entries)


async def test_record_array_list_and_objects_open_up(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Values", line_of("values"))
    point = await debugger.inspect("point")
    assert [(c.name, c.value.text) for c in point.children] == [("x", "3"), ("y", "4")]
    ints = await debugger.inspect("ints", start=1, count=2)
    assert [(c.name, c.value.text) for c in ints.children] == [("[1]", "2"), ("[2]", "3")] and ints.total == 5
    lst = await debugger.inspect("list", start=2)
    assert [c.value.text for c in lst.children] == ['"gamma"'] and lst.total == 3
    # handles are stable: the same object keeps its handle, and can be opened by it
    handle = point.value.handle
    assert (await debugger.inspect(handle)).value.handle == handle
    assert (await debugger.evaluate("objs[3].x")).text == "1"
    assert (await debugger.evaluate("ints.length")).text == "5"
    with pytest.raises(NotFound):
        await debugger.inspect("@99999")


async def test_set_value_changes_locals_fields_and_elements(debugger, jvm_factory, line_of):
    await stop_at(debugger, jvm_factory, "Values", line_of("values"))
    assert (await debugger.set_value("i", "7")).text == "7"
    assert (await debugger.set_value("ints[0]", "99")).text == "99"
    assert (await debugger.set_value("l", "5")).type == "long"
    v = {x.name: x.value.text for x in await debugger.locals()}
    assert v["i"] == "7" and v["ints"].startswith("int[5] [99, 2") and v["l"] == "5"
    assert (await debugger.set_value("nullString", '"now set"')).text == '"now set"'


async def test_redact_mode_hides_secret_named_values(jvm_factory, line_of):
    d = Debugger(redact=True)
    try:
        await stop_at(d, jvm_factory, "Values", line_of("values"))
        from tracepilot.core.inspect.values import is_secret_name
        assert is_secret_name("password") and is_secret_name("apiKey") and is_secret_name("authToken")
        assert not is_secret_name("name")
        values = d.inspector._p().values
        from tracepilot.jdwp import Tag, Value
        shown = await values.view(Value(Tag.INT, 1234), "int", 0, "password")
        assert shown.text == "<redacted>"
    finally:
        await d.close()
