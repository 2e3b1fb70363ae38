"""JNI signatures and Java overload resolution."""

import pytest

from tracepilot.core.evaluator import types as T
from tracepilot.core.evaluator.overloads import (
    NULL_TYPE,
    AmbiguousMethodError,
    Candidate,
    NoApplicableMethodError,
    applicable_phase,
    resolve,
)


@pytest.mark.parametrize(("sig", "name"), [
    ("I", "int"), ("Z", "boolean"), ("J", "long"), ("V", "void"), ("[I", "int[]"), ("[[D", "double[][]"),
    ("Ljava/lang/String;", "java.lang.String"), ("[Ljava/lang/Object;", "java.lang.Object[]"),
    ("Ljava/util/Map$Entry;", "java.util.Map$Entry"),
])
def test_signature_names(sig, name):
    assert T.signature_to_java_name(sig) == name
    assert T.java_name_to_signature(name) == sig


def test_method_signatures():
    assert T.parse_method_signature("(ILjava/lang/String;)V") == (["I", "Ljava/lang/String;"], "V")
    assert T.parse_method_signature("()[J") == ([], "[J")
    assert T.parse_method_signature("([[Ljava/lang/Object;ZC)Ljava/util/List;") == (
        ["[[Ljava/lang/Object;", "Z", "C"], "Ljava/util/List;")
    assert T.format_method_signature(["int", "java.lang.String"], "void") == "(ILjava/lang/String;)V"
    assert T.format_method_signature(["I", "[J"], "Z") == "(I[J)Z"
    assert T.split_signatures("IJ[Ljava/lang/String;D") == ["I", "J", "[Ljava/lang/String;", "D"]
    assert T.java_name_to_signature("[Ljava.lang.String;") == "[Ljava/lang/String;"


@pytest.mark.parametrize("bad", ["", "X", "Ljava/lang/String", "[", "(I", "(I)", "(I)VV"])
def test_bad_signatures(bad):
    with pytest.raises(ValueError):
        if bad.startswith("("):
            T.parse_method_signature(bad)
        else:
            T.signature_to_java_name(bad)


def test_boxing_helpers():
    assert T.box("int") == "java.lang.Integer"
    assert T.box("char") == "java.lang.Character"
    assert T.unbox("java.lang.Boolean") == "boolean"
    assert T.box("java.lang.String") is None and T.unbox("java.lang.String") is None
    assert len(T.BOXES) == 8
    assert T.array_dims("int[][]") == ("int", 2)
    assert T.array_element("java.lang.String[]") == "java.lang.String"
    assert T.is_primitive("int") and not T.is_primitive("void") and T.is_reference("int[]")


# A small class hierarchy the "VM" knows about.
SUPERS = {
    "java.lang.String": {"java.lang.CharSequence", "java.lang.Comparable", "java.io.Serializable"},
    "java.lang.Integer": {"java.lang.Number", "java.lang.Comparable", "java.io.Serializable"},
    "java.lang.Long": {"java.lang.Number", "java.lang.Comparable", "java.io.Serializable"},
    "java.lang.Number": {"java.io.Serializable"},
    "java.util.ArrayList": {"java.util.List", "java.util.Collection", "java.util.AbstractList"},
    "java.util.List": {"java.util.Collection"},
    "Dog": {"Animal"},
}
calls: list[tuple[str, str]] = []


def is_subtype(sub, sup):
    calls.append((sub, sup))
    return sup in SUPERS.get(sub, set())


def m(*params, varargs=False, name="m"):
    return Candidate(tuple(params), varargs, ref="|".join(params) + ("..." if varargs else ""), name=name)


def pick(cands, args):
    return resolve(cands, args, is_subtype).ref


def test_exact_match():
    assert pick([m("int"), m("long")], ["int"]) == "int"


def test_widening_most_specific():
    assert pick([m("long"), m("double")], ["int"]) == "long"
    assert pick([m("double"), m("float")], ["long"]) == "float"
    assert pick([m("int"), m("long")], ["char"]) == "int"
    assert pick([m("short"), m("int")], ["byte"]) == "short"


def test_char_does_not_widen_to_short():
    assert pick([m("short"), m("int")], ["char"]) == "int"


def test_widening_beats_boxing():
    assert pick([m("long"), m("java.lang.Integer")], ["int"]) == "long"
    assert pick([m("double"), m("java.lang.Object")], ["int"]) == "double"


def test_boxing_beats_varargs():
    assert pick([m("java.lang.Integer"), m("int[]", varargs=True)], ["int"]) == "java.lang.Integer"
    assert pick([m("java.lang.Object"), m("int[]", varargs=True)], ["int"]) == "java.lang.Object"


def test_boxing_and_unboxing():
    assert pick([m("java.lang.Object")], ["int"]) == "java.lang.Object"
    assert pick([m("java.lang.Number")], ["long"]) == "java.lang.Number"
    assert pick([m("long")], ["java.lang.Integer"]) == "long"
    assert pick([m("int"), m("java.lang.Object")], ["java.lang.Integer"]) == "java.lang.Object"  # phase 1
    assert pick([m("int"), m("java.lang.String")], ["java.lang.Integer"]) == "int"


def test_no_boxing_then_widening_primitive_to_other_box():
    with pytest.raises(NoApplicableMethodError):
        resolve([m("java.lang.Long")], ["int"], is_subtype)


def test_varargs():
    assert pick([m("java.lang.String", "java.lang.Object[]", varargs=True)], ["java.lang.String"]) \
        == "java.lang.String|java.lang.Object[]..."
    assert pick([m("int[]", varargs=True)], ["int", "int", "int"]) == "int[]..."
    assert pick([m("int[]", varargs=True)], []) == "int[]..."
    assert pick([m("int[]", varargs=True)], ["int[]"]) == "int[]..."  # phase 1, array passed as is
    assert pick([m("java.lang.Object[]", varargs=True)], ["int", "java.lang.String"]) \
        == "java.lang.Object[]..."


def test_varargs_most_specific():
    assert pick([m("int[]", varargs=True), m("long[]", varargs=True)], ["int", "int"]) == "int[]..."
    assert pick([m("java.lang.Object[]", varargs=True), m("java.lang.String[]", varargs=True)],
                ["java.lang.String"]) == "java.lang.String[]..."


def test_fixed_arity_beats_varargs():
    assert pick([m("int", "int"), m("int[]", varargs=True)], ["int", "int"]) == "int|int"


def test_reference_most_specific():
    assert pick([m("java.lang.Object"), m("java.lang.String")], ["java.lang.String"]) == "java.lang.String"
    assert pick([m("java.lang.Object"), m("java.lang.CharSequence")], ["java.lang.String"]) \
        == "java.lang.CharSequence"
    assert pick([m("Animal"), m("Dog")], ["Dog"]) == "Dog"
    assert pick([m("java.util.Collection"), m("java.util.List")], ["java.util.ArrayList"]) == "java.util.List"


def test_null_argument():
    assert pick([m("java.lang.Object"), m("java.lang.String")], [NULL_TYPE]) == "java.lang.String"
    assert pick([m("int"), m("java.lang.String")], [NULL_TYPE]) == "java.lang.String"
    assert pick([m("java.lang.Object"), m("int[]")], [NULL_TYPE]) == "int[]"
    with pytest.raises(AmbiguousMethodError):
        resolve([m("java.lang.String"), m("java.lang.Integer")], [NULL_TYPE], is_subtype)


def test_arrays():
    assert pick([m("java.lang.Object")], ["int[]"]) == "java.lang.Object"
    assert pick([m("java.lang.Object[]"), m("java.lang.Object")], ["java.lang.String[]"]) == "java.lang.Object[]"
    assert pick([m("java.lang.CharSequence[]")], ["java.lang.String[]"]) == "java.lang.CharSequence[]"
    assert pick([m("java.io.Serializable")], ["int[][]"]) == "java.io.Serializable"
    with pytest.raises(NoApplicableMethodError):
        resolve([m("long[]")], ["int[]"], is_subtype)
    with pytest.raises(NoApplicableMethodError):
        resolve([m("java.lang.Object[]")], ["int[]"], is_subtype)


def test_ambiguity():
    with pytest.raises(AmbiguousMethodError) as info:
        resolve([m("int", "long", name="f"), m("long", "int", name="f")], ["int", "int"], is_subtype)
    msg = str(info.value)
    assert msg.startswith("reference to f is ambiguous")
    assert "f(int,long)" in msg and "f(long,int)" in msg
    with pytest.raises(AmbiguousMethodError):
        resolve([m("java.lang.CharSequence"), m("java.lang.Comparable")], ["java.lang.String"], is_subtype)
    with pytest.raises(AmbiguousMethodError):  # both need boxing (phase 2), neither is more specific
        resolve([m("java.lang.Integer", "long"), m("int", "java.lang.Long")], ["int", "long"], is_subtype)


def test_no_applicable_message():
    with pytest.raises(NoApplicableMethodError) as info:
        resolve([m("java.lang.String", name="g")], ["int"], is_subtype)
    assert "no suitable method found for g(int)" in str(info.value)
    with pytest.raises(NoApplicableMethodError):
        resolve([m("int", "int")], ["int"], is_subtype)


def test_duplicate_signatures_are_not_ambiguous():
    a = Candidate(("int",), ref="sub")
    b = Candidate(("int",), ref="super")
    assert resolve([a, b], ["int"], is_subtype).ref == "sub"


def test_from_signature_and_phase():
    c = Candidate.from_signature("(I[Ljava/lang/Object;)V", varargs=True, ref=7, name="printf")
    assert c.params == ("int", "java.lang.Object[]")
    assert str(c) == "printf(int,java.lang.Object...)"
    assert applicable_phase(c, ["int", "java.lang.Object[]"], is_subtype) == 1
    assert applicable_phase(c, ["java.lang.Integer"], is_subtype) == 3
    assert applicable_phase(c, ["int", "int", "int"], is_subtype) == 3
    assert applicable_phase(c, [], is_subtype) is None


def test_object_and_identity_do_not_ask_the_vm():
    calls.clear()
    resolve([m("java.lang.Object")], ["Foo"], is_subtype)
    resolve([m("Foo")], ["Foo"], is_subtype)
    assert calls == []
