"""The copier's embedded class file (core/capture/copier_bytes.py) is the one its Java source describes: a
Java 11 class of the named class, with the methods the debugger calls. (Rebuilding it: see copier_bytes.py.)"""

from __future__ import annotations

from pathlib import Path

from tracepilot.core.capture import copier_bytes
from tracepilot.core.instrument.naming import is_probe_class

SOURCE = Path(copier_bytes.__file__).parent / "java" / "CaptureCopy3__TracepilotProbe.java"


def test_the_embedded_copier_is_its_source_built_for_java_11() -> None:
    data = copier_bytes.class_bytes()
    assert data[:4] == bytes.fromhex("cafebabe") and int.from_bytes(data[6:8], "big") == 55  # (Java 11)
    internal = copier_bytes.NAME.replace(".", "/")
    for text in (internal, copier_bytes.COPY, copier_bytes.COPY_SIGNATURE, copier_bytes.COPY8,
                 copier_bytes.COPY8_SIGNATURE):
        assert text.encode() in data, text
    source = SOURCE.read_text()
    simple = copier_bytes.NAME.rpartition(".")[2]
    assert f"public final class {simple} " in source and "package tracepilot;" in source
    assert "public static Object[] copy(Object[] roots" in source and "public static Object[] copy8(int n" in source
    # Its frames and its class are hidden wherever probes are (thread lists, class lists, steps).
    assert is_probe_class(copier_bytes.NAME)


def test_the_embedded_take_class_is_its_source_built_for_java_11() -> None:
    from tracepilot.core.capture import take_bytes
    from tracepilot.core.instrument import take_call

    data = take_bytes.class_bytes()
    assert data[:4] == bytes.fromhex("cafebabe") and int.from_bytes(data[6:8], "big") == 55  # (Java 11)
    assert take_bytes.INTERNAL == take_call.TAKE_CLASS and take_bytes.TAKE_SIGNATURE == take_call.TAKE_SIGNATURE
    for text in (take_bytes.INTERNAL, take_bytes.TAKE, take_bytes.TAKE_SIGNATURE, copier_bytes.NAME.replace(".", "/")):
        assert text.encode() in data, text
    source = (SOURCE.parent / "CaptureTake3__TracepilotProbe.java").read_text()
    assert "public static int take(int point, String kinds, Object[] values)" in source
    assert is_probe_class(take_bytes.NAME)


def test_the_copiers_jdk_views_are_the_debuggers() -> None:
    """The JDK classes the copier lacks rather than cut as JDK internals are those the debugger shows by a view
    read from their fields (capture/jdk_fields.py): else one path would cut what the other shows."""
    import re

    from tracepilot.core.capture.jdk_fields import VIEWED

    source = SOURCE.read_text()
    listed = source[source.index("String[] VIEWED = {"):]
    listed = listed[:listed.index("};")]
    assert set(re.findall(r'"([^"]+)"', listed)) == VIEWED
