"""A move into the JVM parses each class version once (every thread is held meanwhile): instrument() copies
parse_shared's version of the original instead of parsing it again, and shares the class file it wrote for the
checks that read the new bytes. Neither may change what anyone reads: the shared original stays the original,
and the shared new version reads as the new bytes parsed afresh."""

from __future__ import annotations

from pathlib import Path

from tracepilot.core.instrument import classfile
from tracepilot.core.instrument.classfile import ClassFile
from tracepilot.core.instrument.inserted import inserted_calls
from tracepilot.core.instrument.plan import ProbeSpec, instrument
from tracepilot.core.instrument.resolve import ClassFileResolver
from tracepilot.core.instrument.safety import changed_methods

from .test_compile import jmod  # noqa: F401  (the JDK's java.base, for the resolver)


async def test_instrumenting_leaves_the_shared_original_alone_and_shares_what_reads_as_the_new_bytes(
        java_classes: Path, jmod: Path, line_of) -> None:  # noqa: F811  (the fixture imported above)
    original = (java_classes / "fixtures" / "Instrumented.class").read_bytes()
    shared = ClassFile.parse_shared(original)
    specs = [ProbeSpec(line_of("ins-loop-body"), "i == 500", None, "fixtures/Instrumented$P1"),
             ProbeSpec(line_of("ins-divide"), None, "x={x}", "fixtures/Instrumented$P2")]
    result = await instrument(original, specs, ClassFileResolver([java_classes, jmod]))
    assert ClassFile.parse_shared(original) is shared and shared.to_bytes() == original
    assert ClassFile.parse(original).to_bytes() == original
    new = ClassFile.parse_shared(result.data)
    assert new.to_bytes() == result.data
    probes = {p.probe.class_name for p in result.probes}
    with_shared = changed_methods(original, result.data), inserted_calls(result.data, probes)
    classfile._SHARED.clear()  # (read afresh: each version parsed from its bytes)
    assert (changed_methods(original, result.data), inserted_calls(result.data, probes)) == with_shared
    assert with_shared[0] and len(with_shared[1]) == 2, with_shared
