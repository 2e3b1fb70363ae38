"""The expression interpreter against a real stopped JVM (fixtures/Evaluator.java).

The whole table runs in one JVM session, stopped at ``// @bp:eval`` inside
``Evaluator.compute(3, "lbl")``: arg=3, label="lbl", local=6, localLong=123_456_789_012L,
localDouble=1.5, localChar='x', flag=true, localText="lbl!", localNull=null, localArray={3, 6}.
"""

from __future__ import annotations

import math

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import EvaluationError
from tracepilot.core.evaluator.interpreter import Evaluator
from tracepilot.jdwp import ObjectReference, ReferenceType, StringReference, Tag, Value

pytestmark = pytest.mark.timeout(180)

LMAX = 2**63 - 1
IMAX = 2**31 - 1


class T:
    """An expected value with its JDWP tag: T("J", 5) is the long 5."""

    def __init__(self, tag: str, value: object) -> None:
        self.tag = Tag(ord(tag))
        self.value = value

    def __repr__(self) -> str:
        return f"{self.tag.name}:{self.value!r}"


class Obj:
    """An object of this runtime class (compared by class name)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


TABLE: list[tuple[str, object]] = [
    # literals of every kind
    ("42", 42), ("0x1F", 31), ("0b101", 5), ("017", 15), ("1_000_000", 1000000), ("42L", T("J", 42)),
    ("3.5", T("D", 3.5)), ("2.5f", T("F", 2.5)), ("1e3", 1000.0), ("'a'", T("C", "a")), ("'\\n'", "\n"),
    ('"hi"', "hi"), ('"tab\\there"', "tab\there"), ("true", True), ("false", False), ("null", None),
    ("'\\u0041'", "A"),
    # locals and arguments
    ("arg", 3), ("label", "lbl"), ("local", 6), ("localLong", T("J", 123456789012)), ("localDouble", 1.5),
    ("localChar", T("C", "x")), ("flag", True), ("localText", "lbl!"), ("localNull", None),
    ("localArray[1]", 6), ("localArray.length", 2),
    # this, implicit this, inherited fields, statics
    ("field", 5), ("this.field", 5), ("text", "hello"), ("nullText", None), ("letter", "q"),
    ("bigLong", T("J", 1 << 40)), ("ratio", 0.25), ("baseField", 100), ("this.baseField", 100),
    ("super.baseField", 100), ("staticInt", 7), ("Evaluator.staticInt", 7), ("fixtures.Evaluator.staticInt", 7),
    ("CONST", "constant"), ("Evaluator.CONST", "constant"), ("boxed", Obj("java.lang.Integer")),
    ("this == this", True), ("this.describe()", "Evaluator(5)"),
    # arrays
    ("numbers[0]", 10), ("numbers[2]", 30), ("numbers.length", 3), ("words[1]", "two"), ("words[2]", None),
    ("words.length", 3), ("grid[1][0]", 3), ("grid[0].length", 2), ("grid.length", 2),
    ("numbers[arg - 2]", 20), ("words[0].length()", 3),
    # arithmetic, promotion, overflow
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("7 / 2", 3), ("-7 / 2", -3), ("7 % 3", 1), ("-7 % 3", -1),
    ("7 % -3", 1), ("7.0 / 2", 3.5), ("7 / 2.0f", T("F", 3.5)), ("1 / 3.0", 1 / 3.0),
    ("nearMaxInt + 1", -(2**31)), ("nearMaxLong + 2", T("J", -(2**63))), ("Integer.MAX_VALUE * 2", -2),
    ("Long.MAX_VALUE + 1", T("J", -(2**63))), ("(byte) 200", T("B", -56)), ("(short) 70000", T("S", 4464)),
    ("(int) 3.99", 3), ("(int) -3.99", -3), ("(long) 1e30", T("J", LMAX)), ("(int) Double.NaN", 0),
    ("(char) 65", T("C", "A")), ("(int) 'A'", 65), ("'a' + 1", 98), ("(char) ('a' + 1)", "b"),
    ("localChar + 1", 121), ("letter + letter", 226), ("0.1f + 0.2f", T("F", 0.30000001192092896)),
    ("0.1 + 0.2", 0.30000000000000004), ("1.0 / 0", math.inf), ("-1.0 / 0", -math.inf),
    ("(float) 1 / 3", T("F", 0.3333333432674408)), ("arg * localLong", T("J", 370370367036)),
    ("5 + localDouble", 6.5), ("-arg", -3), ("+arg", 3), ("~arg", -4), ("-Integer.MIN_VALUE", -(2**31)),
    ("bigLong >> 38", T("J", 4)), ("1 << 33", 2), ("1L << 33", T("J", 2**33)), ("-16 >> 2", -4),
    ("-16 >>> 28", 15), ("-16L >>> 60", T("J", 15)), ("6 & 3", 2), ("6 | 3", 7), ("6 ^ 3", 5),
    ("true ^ true", False), ("true & false", False), ("false | true", True),
    # comparisons, logic, ternary
    ("arg > 2", True), ("arg >= 4", False), ("arg == 3", True), ("arg != 3", False), ("3 == 3.0", True),
    ("'a' == 97", True), ("localDouble < 2", True), ("flag && arg > 1", True), ("!flag", False),
    ("flag ? 1 : 2", 1), ("arg > 5 ? \"big\" : \"small\"", "small"), ("Double.NaN == Double.NaN", False),
    ("localNull == null", True), ("nullText != null", False), ("text == text", True),
    ("words[2] == null", True), ("mode == Mode.FAST", True), ("mode == Mode.SLOW", False),
    ("nullText == null || nullText.length() > 0", True),  # short-circuit: no NullPointerException
    ("nullText != null && nullText.length() > 0", False),
    ("localNull == null ? 0 : localNull.hashCode()", 0),
    # string concatenation (toString in the target, null -> "null")
    ('"a" + 1 + 2', "a12"), ('1 + 2 + "a"', "3a"), ('"x" + nullText', "xnull"), ('"v=" + localNull', "v=null"),
    ('"c" + letter', "cq"), ('"d" + 1.0', "d1.0"), ('"f" + 1.5f', "f1.5"), ('"l" + 10L', "l10"),
    ('"b" + flag', "btrue"), ('"e" + 1e20', "e1.0E20"), ('text + " " + field', "hello 5"),
    ('"p=" + pair', "p=Pair[left=1, right=one]"), ('"m=" + mode', "m=FAST"), ('"bx=" + boxed', "bx=99"),
    ('"n=" + new Nested().twice()', "n=22"), ('text + localChar', "hellox"), ('"" + (char) 66', "B"),
    ('("o" + this).startsWith("ofixtures.Evaluator@")', True), ('"arr " + numbers.length', "arr 3"),
    # boxing and unboxing
    ("boxed + 1", 100), ("boxed * 2L", T("J", 198)), ("boxed == 99", True), ("-boxed", -99),
    ("(int) boxed", 99), ("(long) boxed", T("J", 99)), ("(Integer) 5", Obj("java.lang.Integer")),
    ("(Object) 5 instanceof Integer", True), ("Integer.valueOf(7) + 1", 8), ("boxed.intValue()", 99),
    ("boxed.equals(99)", True), ("Integer.valueOf(1000) == Integer.valueOf(1000)", False),
    # method calls, overloads, varargs, boxing
    ("over(1)", "int"), ("over(1L)", "long"), ("over(1.5)", "double"), ("over(1.5f)", "double"),
    ("over('c')", "int"), ("over((short) 1)", "int"), ("over(\"s\")", "String"), ("over(boxed)", "Integer"),
    ("over((Object) \"s\")", "Object"), ("over(pair)", "Object"), ("over(nullObject)", "Object"),
    ("varargs()", "varargs:0"), ("varargs(1)", "varargs:1"), ("varargs(1, 2, 3)", "varargs:3"),
    ("varargs(new int[]{1, 2})", "varargs:2"), ('varargs("s")', "String+varargs:0"),
    ('varargs("s", 1, "x")', "String+varargs:2"), ("add(2, 3)", 5), ("Evaluator.add(2, 3)", 5),
    ("addLong(1, 2)", T("J", 3)), ("add('a', 1)", 98), ("compute(0, \"\") > 0", True),
    ("baseOnly()", 101), ("describe()", "Evaluator(5)"), ("super.describe()", "EvaluatorBase"),
    ("greeting()", "hi from default"), ("this.greeting()", "hi from default"),
    ("EvaluatorApi.staticHelper(4)", "helper4"), ("fixtures.EvaluatorApi.staticHelper(5)", "helper5"),
    ("Math.max(3, 7)", 7), ("Math.max(1L, 2)", T("J", 2)), ("Math.abs(-2.5)", 2.5),
    ("String.valueOf(12)", "12"), ('String.format("%d-%s", 3, "x")', "3-x"), ("Integer.parseInt(\"42\")", 42),
    ("Integer.toHexString(255)", "ff"), ("Long.MAX_VALUE", T("J", LMAX)), ("Integer.MIN_VALUE", -(2**31)),
    ('java.util.List.of(1, 2, 3).size()', 3), ("java.util.Arrays.asList(words).size()", 3),
    ("text.length()", 5), ("text.toUpperCase()", "HELLO"), ("text.charAt(1)", T("C", "e")),
    ("text.substring(1, 3)", "el"), ('text.equals("hello")', True), ('text.equals("x")', False),
    ('"abc".length()', 3), ('("a" + "b").equals("ab")', True), ("text.isEmpty()", False),
    ('text.startsWith("he")', True), ('text.contains("ll")', True), ("text.hashCode()", 99162322),
    ("text.indexOf('l')", 2), ("label.concat(\"!\")", "lbl!"), ("localText.length()", 4),
    # records, enums, nested and inner classes
    ("pair.left()", 1), ("pair.right()", "one"), ("pair.left", 1), ("new Pair(2, \"b\").left()", 2),
    ('new Pair(2, "b").equals(new Pair(2, "b"))', True), ("Mode.FAST.label()", "fast"),
    ("mode.label()", "fast"), ("mode.ordinal()", 0), ("Mode.valueOf(\"SLOW\").ordinal()", 1),
    ("Mode.values().length", 2), ("Evaluator.Mode.SLOW.name()", "SLOW"), ("mode.name()", "FAST"),
    ("Nested.nestedStatic", 3), ("Evaluator.Nested.nestedStatic", 3), ("new Nested().twice()", 22),
    ("new Evaluator.Nested().value", 11), ("new Inner().innerField", 4), ("new Inner().sumWithOuter(1)", 10),
    ("this.new Inner().innerField", None),  # qualified instance creation: see ERRORS (skipped below)
    # new objects and arrays
    ("new int[3].length", 3), ("(new int[3])[0]", 0), ("new int[3][0].length", 3), ("new int[]{4, 5, 6}[2]", 6),
    ("(new String[2])[0] == null", True), ("(new String[2][])[0] == null", True), ("new String[]{\"a\", \"b\"}[1]", "b"), ("new int[2][3][1].length", 2), ("(new int[2][3][1])[1].length", 3),
    ("new long[]{1, 2}[0]", T("J", 1)), ("new StringBuilder(\"ab\").append(1).toString()", "ab1"),
    ("new StringBuilder().append('x').append(2.5).toString()", "x2.5"),
    ("new java.util.ArrayList().size()", 0), ("new Object() != null", True),
    ("new char[]{'h', 'i'}.length", 2), ("new String(new char[]{'h', 'i'})", "hi"),
    ("new int[][]{{1}, {2, 3}}[1][1]", 3),
    # instanceof and patterns, casts
    ("text instanceof String", True), ("text instanceof CharSequence", True), ("nullText instanceof String", False),
    ("pair instanceof Pair", True), ("this instanceof EvaluatorBase", True), ("this instanceof EvaluatorApi", True),
    ("numbers instanceof int[]", True), ("words instanceof Object[]", True), ("mode instanceof Enum", True),
    ("(Object) text instanceof String s && s.length() == 5", True),
    ("pair instanceof Pair p ? p.right() : \"no\"", "one"),
    ("boxed instanceof Integer i && i > 50", True),
    ("((Object) pair) instanceof Pair(int l, String r)", None),  # record patterns: not supported (see ERRORS)
    ("(String) (Object) text", "hello"), ("((EvaluatorBase) this).describe()", "Evaluator(5)"),
    ("(Object) null == null", True), ("(double) arg / 2", 1.5), ("(float) localDouble", T("F", 1.5)),
    ("(long) arg << 40", T("J", 3 << 40)), ("(CharSequence) text", "hello"),
    # class literals
    ("String.class.getName()", "java.lang.String"), ("int.class.getName()", "int"),
    ("Evaluator.class.getSimpleName()", "Evaluator"), ("int[].class.getName()", "[I"),
    ("this.getClass().getName()", "fixtures.Evaluator"),
    # assignment expressions (effects checked in test_assignment_effects too)
    ("local = 10", 10), ("local", 10), ("local += 5", 15), ("local++", 15), ("local", 16), ("++local", 17),
    ("local--", 17), ("--local", 15), ("local -= 9", 6), ("localChar++", "x"), ("localChar", "y"),
    ("localChar = 'x'", "x"), ("localLong *= 2", T("J", 246913578024)), ("localLong /= 2", T("J", 123456789012)),
    ("localDouble += 1", 2.5), ("localDouble = 1.5", 1.5), ("localText += 1", "lbl!1"),
    ("localText = label + \"!\"", "lbl!"), ("field = 6", 6), ("field", 6), ("this.field += 1", 7),
    ("field = 5", 5), ("staticInt = 8", 8), ("Evaluator.staticInt", 8), ("staticInt = 7", 7),
    ("numbers[0] = 11", 11), ("numbers[0] += 1", 12), ("numbers[0]", 12), ("numbers[0] = 10", 10),
    ("words[2] = \"three\"", "three"), ("words[2]", "three"), ("words[2] = null", None),
    ("boxed = 100", Obj("java.lang.Integer")), ("boxed + 0", 100), ("boxed += 1", Obj("java.lang.Integer")),
    ("boxed + 0", 101), ("boxed = 99", Obj("java.lang.Integer")), ("nullText = \"set\"", "set"),
    ("nullText.length()", 3), ("nullText = null", None), ("letter = 'r'", "r"), ("letter = 'q'", "q"),
    ("ratio *= 2", 0.5), ("ratio = 0.25", 0.25), ("bigLong |= 1", T("J", (1 << 40) | 1)),
    ("bigLong = 1L << 40", T("J", 1 << 40)),
    # marks and extra values
    ("$x + 1", 42), ("$s.length()", 3),
]
TABLE = [(e, v) for e, v in TABLE if v is not None]

EXTRA_STR = "abc"


async def _py(d: Debugger, v: Value) -> object:
    """A JDWP value as a Python value for comparison (objects other than strings: Obj(class))."""
    vm = d.session.vm
    if v.tag == Tag.STRING:
        return None if v.value == 0 else (await vm.send(StringReference.Value, v.value)).string_value
    if v.is_object:
        if v.value == 0:
            return None
        rt = await vm.send(ObjectReference.ReferenceType, v.value)
        return Obj((await vm.type(rt.type_id)).name)
    return v


def _matches(expected: object, got: object) -> bool:
    if isinstance(expected, T):
        return isinstance(got, Value) and got.tag == expected.tag and _same(expected.value, got.value)
    if isinstance(expected, Obj):
        return isinstance(got, Obj) and got.name == expected.name
    if isinstance(got, Value):
        if isinstance(expected, bool):
            return got.tag == Tag.BOOLEAN and got.value is expected
        if isinstance(expected, int):
            return got.tag == Tag.INT and got.value == expected
        if isinstance(expected, float):
            return got.tag == Tag.DOUBLE and _same(expected, got.value)
        if isinstance(expected, str):
            return got.tag == Tag.CHAR and got.value == expected
        return False
    return expected == got


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return a == b


@pytest.fixture
async def stopped(jvm_factory, line_of, java_source_root):
    jvm = jvm_factory("Evaluator", jdk="17")
    d = Debugger(sourcepath=[str(java_source_root)])
    await d.attach(jvm.address)
    await d.breakpoint_set(f"fixtures.Evaluator:{line_of('eval')}")
    await d.resume(timeout=15)
    assert d.session.stop is not None
    yield d
    await d.close()


async def test_expression_table(stopped: Debugger):
    d = stopped
    tid = d.session.stop.thread_id
    ev = Evaluator(d.session)
    s = (await d.session.vm.send(__import__("tracepilot.jdwp", fromlist=["VirtualMachine"]).VirtualMachine.CreateString,
                                 EXTRA_STR)).string_object
    extra = {"$x": Value(Tag.INT, 41), "$s": Value(Tag.STRING, s)}
    assert len(TABLE) >= 150
    failures = []
    for text, expected in TABLE:
        try:
            got = await _py(d, await ev.evaluate(text, tid, extra=extra))
        except EvaluationError as e:
            failures.append(f"{text!r}: raised {e}")
            continue
        if not _matches(expected, got):
            failures.append(f"{text!r}: expected {expected!r}, got {got!r}")
    assert not failures, f"{len(failures)} of {len(TABLE)} failed:\n" + "\n".join(failures)


ERRORS = [
    # text, fragment of the message, column (None: not checked)
    ("nosuch", "cannot find symbol 'nosuch'", 0),
    ("arg + nosuch", "cannot find symbol 'nosuch'", 6),
    ("lcoal", "did you mean local", 0),
    ("text.nosuch()", "cannot find symbol: method nosuch()", 5),
    ("text.nofield", "cannot find symbol: field 'nofield' in java.lang.String", 0),
    ("arg + ", "expected an expression after '+'", 5),
    ("foo(", "never closed", 3),
    ("1 / 0", "threw java.lang.ArithmeticException: / by zero", 2),
    ("5 % 0", "threw java.lang.ArithmeticException: / by zero", 2),
    ("numbers[3]", "threw java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds for length 3", 0),
    ("nullText.length()", "threw java.lang.NullPointerException", None),
    ("localNull.toString()", "threw java.lang.NullPointerException", None),
    ("(String) (Object) pair", "threw java.lang.ClassCastException: class fixtures.Evaluator$Pair cannot be cast "
                               "to class java.lang.String", 0),
    ("text.charAt(99)", "threw java.lang.StringIndexOutOfBoundsException", None),
    ("Integer.parseInt(\"x\")", "threw java.lang.NumberFormatException: For input string: \"x\"", None),
    ("true + 1", "bad operand types for binary operator '+'", 5),
    ("!arg", "bad operand type int for unary operator '!'", 0),
    ("flag * 2", "bad operand types", 5),
    ("arg ? 1 : 2", "must be boolean, but this is int", 0),
    ("arg && flag", "must be boolean", 0),
    ("over(1, 2, 3)", "no suitable method found", 0),
    ("add(\"a\", 1)", "cannot be applied to", 0),
    ("pair.left(1)", "cannot be applied to", 5),
    ("local = \"s\"", "incompatible types: String cannot be converted to int", 6),
    ("local = 1L", "possible lossy conversion from long to int", 6),
    ("field = null", "incompatible types: <null> cannot be converted to int", 6),
    ("text = 5", "incompatible types: int cannot be converted to java.lang.String", 5),
    ("arg.foo", "int cannot be dereferenced", 0),
    ("3 = 4", "left side is not a variable", None),
    ("numbers.size", "arrays have only 'length'", 0),
    ("Evaluator.field", "non-static field 'field' cannot be referenced", 0),
    ("NoSuchClass.x", "cannot find symbol 'NoSuchClass'", 0),
    ("new NoSuchClass()", "cannot find class 'NoSuchClass'", 4),
    ("new EvaluatorApi()", "is an interface", 4),
    ("new int[-1]", "threw java.lang.NegativeArraySizeException: -1", 8),
    ("numbers[\"x\"]", "array index must be an int", 8),
    ("x -> x", "lambdas are not supported", 0),
    ("this.new Inner().innerField", None, None),
    ("((Object) pair) instanceof Pair(int l, String r)", None, None),
]


async def test_error_messages(stopped: Debugger):
    d = stopped
    tid = d.session.stop.thread_id
    ev = Evaluator(d.session)
    failures = []
    for text, fragment, column in ERRORS:
        try:
            got = await ev.evaluate(text, tid)
        except EvaluationError as e:
            if fragment is None:
                continue  # unsupported construct: any clear error will do
            if fragment not in str(e):
                failures.append(f"{text!r}: message {str(e)!r} lacks {fragment!r}")
            if column is not None and getattr(e, "column", None) != column:
                failures.append(f"{text!r}: column {getattr(e, 'column', None)} instead of {column}")
            if "threw" not in fragment and column is not None and "^" not in str(e):
                failures.append(f"{text!r}: no caret in {str(e)!r}")
            continue
        if fragment is not None:
            failures.append(f"{text!r}: no error, got {got!r}")
    assert not failures, "\n".join(failures)


async def test_read_only_forbids_side_effects(stopped: Debugger):
    d = stopped
    tid = d.session.stop.thread_id
    ev = Evaluator(d.session)
    for text, what in [("text.toUpperCase()", "calling toUpperCase()"), ("local = 1", "assignment"),
                       ("local++", "assignment"), ("new Object()", "new java.lang.Object()"),
                       ('"" + pair', "toString()")]:
        with pytest.raises(EvaluationError, match="side effects are disabled") as info:
            await ev.evaluate(text, tid, allow_side_effects=False)
        assert what in str(info.value)
    # reading, arithmetic, String methods answered locally and string building stay allowed
    v = await ev.evaluate('text.length() + local + numbers[1] + ("a" + arg).length()', tid, allow_side_effects=False)
    assert v == Value(Tag.INT, 5 + 6 + 20 + 2)
    assert await ev.condition('label.equals("lbl") && localNull == null', tid)


async def test_assignment_effects(stopped: Debugger, line_of):
    d = stopped
    tid = d.session.stop.thread_id
    ev = Evaluator(d.session)
    assert await ev.assign("local", "100", tid, 0) == Value(Tag.INT, 100)
    assert await ev.assign("this.field", "field + 1", tid, 0) == Value(Tag.INT, 6)
    assert await ev.assign("numbers[1]", "local", tid, 0) == Value(Tag.INT, 100)
    assert await ev.assign("staticInt", "staticInt * 3", tid, 0) == Value(Tag.INT, 21)
    await ev.assign("localText", '"changed"', tid, 0)
    # the frame sees the new values (fresh evaluator: nothing cached)
    ev2 = Evaluator(d.session)
    assert await ev2.evaluate("local + field + numbers[1] + staticInt", tid) == Value(Tag.INT, 100 + 6 + 100 + 21)
    assert await ev2.condition('localText.equals("changed")', tid)
    with pytest.raises(EvaluationError, match="expected a variable"):
        await ev.assign("1 + 2", "3", tid, 0)
    with pytest.raises(EvaluationError, match="possible lossy conversion"):
        await ev.assign("local", "1.5", tid, 0)


async def test_conditions_and_templates(stopped: Debugger):
    d = stopped
    tid = d.session.stop.thread_id
    ev = Evaluator(d.session)
    assert await ev.condition("arg == 3", tid) is True
    assert await ev.condition("arg == 3", tid) is True  # cached plan
    assert await ev.condition("local > 100", tid) is False
    assert await ev.condition("boxed == 99", tid) is True
    assert await ev.condition("Boolean.valueOf(flag)", tid) is True
    with pytest.raises(EvaluationError, match="must be boolean"):
        await ev.condition("arg + 1", tid)
    with pytest.raises(EvaluationError, match="threw java.lang.NullPointerException"):
        await ev.condition("localNull.hashCode() == 0", tid)
    with pytest.raises(EvaluationError, match="cannot find symbol"):
        await ev.condition("nosuch > 1", tid)
    out = await ev.format_template("x={local} s={label} p={pair} n={localNull} c={letter} d={ratio} "
                                   "{{lit}} sum={arg + local} arr={new int[]{1, 2}.length}", tid)
    assert out == "x=6 s=lbl p=Pair[left=1, right=one] n=null c=q d=0.25 {lit} sum=9 arr=2"
    out = await ev.format_template("bad={nosuch} ok={arg}", tid)
    assert out.startswith("bad=<error: cannot find symbol 'nosuch'") and out.endswith(" ok=3")
    with pytest.raises(EvaluationError, match="never closed"):
        await ev.format_template("x={arg", tid)
    with pytest.raises(EvaluationError, match="expected an expression"):
        await ev.format_template("x={arg +}", tid)


async def test_frames_are_refetched_after_invocation(stopped: Debugger):
    d = stopped
    tid = d.session.stop.thread_id
    ev = Evaluator(d.session)
    # an invocation resumes the thread (stale frame ids); the locals after it still read right
    v = await ev.evaluate("text.toUpperCase().length() + local + text.toUpperCase().length() + arg", tid)
    assert v == Value(Tag.INT, 5 + 6 + 5 + 3)
    v = await ev.evaluate("local = text.toUpperCase().length()", tid)
    assert await ev.evaluate("local", tid) == Value(Tag.INT, 5)


async def test_outer_fields_in_inner_class(jvm_factory, line_of, java_source_root):
    jvm = jvm_factory("Evaluator", jdk="17")
    d = Debugger(sourcepath=[str(java_source_root)])
    try:
        await d.attach(jvm.address)
        await d.breakpoint_set(f"fixtures.Evaluator:{line_of('eval-lambda')}")
        await d.breakpoint_set(f"fixtures.Evaluator:{line_of('eval-inner')}")
        await d.resume(timeout=15)
        tid = d.session.stop.thread_id
        ev = Evaluator(d.session)
        # inside the lambda: the captured locals are its parameters
        assert await ev.evaluate("captured", tid) == Value(Tag.INT, 9)
        assert await ev.evaluate("local + arg", tid) == Value(Tag.INT, 9)
        assert await ev.evaluate("staticInt", tid) == Value(Tag.INT, 7)
        assert await ev.evaluate("add(local, arg)", tid) == Value(Tag.INT, 9)
        await d.resume(timeout=15)
        tid = d.session.stop.thread_id
        # inside Evaluator$Inner.sumWithOuter(1): own fields, outer fields via this$0, outer statics
        table = [("local", 5), ("extra", 1), ("innerField", 4), ("field", 5), ("this.innerField", 4),
                 ("Evaluator.this.field", 5), ("baseField", 100), ("staticInt", 7), ("describe().length()", 12),
                 ("Evaluator.this.describe()", "Evaluator(5)"), ("local + field + extra", 11),
                 ("numbers[2] + innerField", 34), ("over(1)", "int"), ("new Inner().innerField", 4)]
        for text, expected in table:
            got = await _py(d, await ev.evaluate(text, tid))
            assert _matches(expected, got), (text, got)
        # assignment to an outer field through the implicit this$0
        await ev.evaluate("field = 50", tid)
        assert await ev.evaluate("Evaluator.this.field", tid) == Value(Tag.INT, 50)
    finally:
        await d.close()


async def test_jdk25(jvm_factory, line_of, java_source_root, jdks):
    if "25" not in jdks:
        pytest.skip("JDK 25 runtime missing")
    jvm = jvm_factory("Evaluator", jdk="25")
    d = Debugger(sourcepath=[str(java_source_root)])
    try:
        await d.attach(jvm.address)
        await d.breakpoint_set(f"fixtures.Evaluator:{line_of('eval')}")
        await d.resume(timeout=15)
        tid = d.session.stop.thread_id
        ev = Evaluator(d.session)
        for text, expected in [("over(boxed)", "Integer"), ('"p=" + pair', "p=Pair[left=1, right=one]"),
                               ("varargs(1, 2)", "varargs:2"), ("new Nested().twice()", 22),
                               ("(Object) text instanceof String s && s.length() == 5", True)]:
            got = await _py(d, await ev.evaluate(text, tid))
            assert _matches(expected, got), (text, got)
    finally:
        await d.close()


_ = ReferenceType
