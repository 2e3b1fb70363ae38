"""Which methods a redefinition changes (instrument/safety.py): a method whose code is byte for byte the same
but names another constant at the same pool index (a line whose probe was replaced by another's: the new probe
class has another name) is another method to the JVM, which leaves a frame running the old one obsolete, on
the old probe. Counted as unchanged, a capture point set while the method ran went into the JVM and its
running call's hit went to the removed point's inert probe (found by the differential test)."""

from __future__ import annotations

from pathlib import Path

from tracepilot.core.instrument.classfile import UTF8, ClassFile
from tracepilot.core.instrument.safety import changed_methods


def test_a_method_whose_code_names_another_constant_at_the_same_index_is_changed(java_classes: Path) -> None:
    data = (java_classes / "fixtures" / "Differential.class").read_bytes()
    assert changed_methods(data, data) == set()
    cf = ClassFile.parse(data)
    index = next(i for i, e in enumerate(cf.pool.entries) if e and e[0] == UTF8 and cf.pool.utf8(i) == "length")
    cf.pool.entries[index] = (UTF8, (6).to_bytes(2, "big") + b"lengtx")  # weigh calls name.length()
    assert changed_methods(data, cf.to_bytes()) == {"weigh(ILjava/lang/String;)I"}
