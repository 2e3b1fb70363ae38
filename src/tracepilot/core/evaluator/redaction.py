"""What --redact refuses in expressions, because the answer could carry a secret the name check misses.

Redaction works by name: a field, local or expression naming something secret-looking shows <redacted>.
Reflection reaches fields without naming them (`f.getClass().getDeclaredField("pass" + "word").get(f)`,
`getDeclaredFields()[1].get(f)`), and a `toString()` the target computes reads them itself. Neither can be
masked reliably after the fact, so under --redact the evaluator refuses both: every call into the
reflection and method-handle APIs (and Class methods that hand out fields or methods), and `toString()`
(also implicit, in string concatenation) of an object that has a secret-looking field.
"""

from __future__ import annotations

from ..inspect.values import is_secret_name

# Calls into these reach any field or method by a computed name.
REFLECTIVE_PACKAGES = ("java.lang.reflect.", "java.lang.invoke.", "jdk.internal.reflect.", "jdk.internal.misc.",
                       "sun.misc.", "sun.reflect.")
CLASS_REFLECTION = frozenset({
    "getDeclaredField", "getDeclaredFields", "getField", "getFields", "getDeclaredMethod", "getDeclaredMethods",
    "getMethod", "getMethods", "getDeclaredConstructor", "getDeclaredConstructors", "getConstructor",
    "getConstructors", "getRecordComponents", "getEnclosingMethod",
})


def reflective_call(declaring_class: str, method: str) -> str | None:
    """Why calling `declaring_class.method` is refused under --redact (None: it is not reflection)."""
    if declaring_class.startswith(REFLECTIVE_PACKAGES):
        return (f"{declaring_class}.{method}() is reflection, refused under --redact: it can read fields whose "
                "names look secret without naming them")
    if declaring_class == "java.lang.Class" and method in CLASS_REFLECTION:
        return (f"Class.{method}() hands out fields or methods for reflection, refused under --redact: read the "
                "field by its name instead (secret-looking ones show <redacted>)")
    return None


def secret_field(field_names: list[str]) -> str | None:
    """The first secret-looking field name of an object (its toString() may print it)."""
    return next((name for name in field_names if is_secret_name(name)), None)
