"""A variable's label in the Variables pane names its type as its value does: a lambda's class by the class that
wrote it ("SelfNamed$$Lambda"), not its hidden class's address (the JVM side: tests/core/test_self_named_values.py)."""

from __future__ import annotations

from tracepilot.core.model import ValueView, Variable
from tracepilot.tui.widgets.variables import label_for


def test_a_lambda_local_is_labelled_with_its_readable_class_name() -> None:
    for hidden in ("fixtures.SelfNamed$$Lambda$1.0x00007f1f3c000a08", "fixtures.SelfNamed$$Lambda/0x0000000800c01000"):
        view = ValueView(hidden, "SelfNamed$$Lambda{arg$1=2}", "object", "@2", expandable=True)
        assert label_for(Variable("lambda", view, "local")).plain == \
            "lambda = SelfNamed$$Lambda{arg$1=2}  SelfNamed$$Lambda"
    plain = ValueView("java.util.HashMap$Node", "HashMap$Node{…}", "object", "@3")
    assert label_for(Variable("node", plain, "local")).plain.endswith("  HashMap$Node")
