"""What --redact refuses in expressions, because the answer could carry a secret the name check misses.

Redaction works by name: a field, local or expression naming something secret-looking shows <redacted>.
Reflection reaches fields without naming them (`f.getClass().getDeclaredField("pass" + "word").get(f)`,
`getDeclaredFields()[1].get(f)`), and a `toString()` the target computes reads them itself. Neither can be
masked reliably after the fact, so under --redact the evaluator refuses both: every call into the
reflection and method-handle APIs (and Class methods that hand out fields or methods), and `toString()`
(also implicit, in string concatenation) of an object that has a secret-looking field. The same goes for the
other calls that print whole objects (`String.valueOf`, `String.format`, `StringBuilder.append`,
`Arrays.toString`, ...) when an argument reaches a secret (inspect/secret_values.py decides "reaches").
"""

from __future__ import annotations

from ..secrets import is_secret_name

# Calls whose answer can carry an object's whole content as text: refused under --redact when the receiver
# or an argument holds a secret (Object's own toString() prints only the class and hash: allowed).
PRINTING_METHODS = frozenset({"toString", "valueOf", "copyValueOf", "format", "formatted", "join", "append",
                              "insert", "deepToString", "print", "println", "printf", "write", "concat",
                              "repeat", "getMessage", "getLocalizedMessage"})

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


def prints_its_arguments(declaring_class: str, method: str, has_args: bool) -> bool:
    """Whether a call's answer (or its output) can quote its receiver or arguments whole."""
    if method == "toString" and declaring_class == "java.lang.Object" and not has_args:
        return False
    return method in PRINTING_METHODS


__all__ = ["is_secret_name", "prints_its_arguments", "reflective_call"]
