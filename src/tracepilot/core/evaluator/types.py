"""JVM type signatures and Java type names.

Two spellings are used throughout the evaluator:

* JNI signatures, as JDWP speaks them: ``I``, ``Ljava/lang/String;``, ``[I``,
  ``(ILjava/lang/String;)V``;
* Java names, as overload resolution and messages use them: ``int``, ``java.lang.String``,
  ``int[]``, ``java.util.Map$Entry`` (binary names: nested classes keep their ``$``).
"""

from __future__ import annotations

__all__ = [
    "BOXES",
    "JAVA_LANG_OBJECT",
    "PRIMITIVE_NAMES",
    "UNBOXES",
    "array_dims",
    "array_element",
    "box",
    "format_method_signature",
    "is_array",
    "is_primitive",
    "is_reference",
    "java_name_to_signature",
    "parse_method_signature",
    "signature_to_java_name",
    "split_signatures",
    "unbox",
]

JAVA_LANG_OBJECT = "java.lang.Object"

_PRIM_SIG_TO_NAME = {
    "Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float",
    "D": "double", "V": "void",
}
_PRIM_NAME_TO_SIG = {v: k for k, v in _PRIM_SIG_TO_NAME.items()}
PRIMITIVE_NAMES = frozenset(n for n in _PRIM_NAME_TO_SIG if n != "void")

BOXES = {
    "boolean": "java.lang.Boolean", "byte": "java.lang.Byte", "char": "java.lang.Character",
    "short": "java.lang.Short", "int": "java.lang.Integer", "long": "java.lang.Long",
    "float": "java.lang.Float", "double": "java.lang.Double",
}
"""primitive name -> wrapper class name"""
UNBOXES = {v: k for k, v in BOXES.items()}
"""wrapper class name -> primitive name"""


def _one(sig: str, i: int) -> int:
    """End index of the signature starting at sig[i]."""
    start = i
    while i < len(sig) and sig[i] == "[":
        i += 1
    if i >= len(sig):
        raise ValueError(f"truncated type signature {sig[start:]!r}")
    c = sig[i]
    if c in _PRIM_SIG_TO_NAME:
        return i + 1
    if c == "L":
        end = sig.find(";", i)
        if end < 0:
            raise ValueError(f"unterminated class signature {sig[start:]!r}")
        return end + 1
    raise ValueError(f"bad type signature {sig[start:]!r}")


def split_signatures(sigs: str) -> list[str]:
    """'ILjava/lang/String;[J' -> ['I', 'Ljava/lang/String;', '[J']"""
    out, i = [], 0
    while i < len(sigs):
        j = _one(sigs, i)
        out.append(sigs[i:j])
        i = j
    return out


def parse_method_signature(sig: str) -> tuple[list[str], str]:
    """'(ILjava/lang/String;)V' -> (['I', 'Ljava/lang/String;'], 'V')"""
    if not sig.startswith("(") or ")" not in sig:
        raise ValueError(f"bad method signature {sig!r}")
    close = sig.index(")")
    params = split_signatures(sig[1:close])
    ret = sig[close + 1:]
    if _one(ret, 0) != len(ret):
        raise ValueError(f"bad return type in method signature {sig!r}")
    return params, ret


def format_method_signature(params: list[str] | tuple[str, ...], ret: str = "V") -> str:
    """Inverse of parse_method_signature. Accepts JNI signatures or Java names."""
    def s(x: str) -> str:
        return x if _is_sig(x) else java_name_to_signature(x)
    return "(" + "".join(map(s, params)) + ")" + s(ret)


def _is_sig(x: str) -> bool:
    try:
        return _one(x, 0) == len(x) and (x[-1] == ";" or len(x.lstrip("[")) == 1)
    except ValueError:
        return False


def signature_to_java_name(sig: str) -> str:
    """'I' -> 'int', '[Ljava/lang/String;' -> 'java.lang.String[]', 'Ljava/util/Map$Entry;' ->
    'java.util.Map$Entry'."""
    if _one(sig, 0) != len(sig):
        raise ValueError(f"bad type signature {sig!r}")
    dims = len(sig) - len(sig.lstrip("["))
    base = sig[dims:]
    name = _PRIM_SIG_TO_NAME.get(base) or base[1:-1].replace("/", ".")
    return name + "[]" * dims


def java_name_to_signature(name: str) -> str:
    """'int[]' -> '[I', 'java.lang.String' -> 'Ljava/lang/String;'. Also accepts JVM-style array
    class names as Class.getName() prints them ('[I', '[Ljava.lang.String;')."""
    name = name.strip()
    if name.startswith("["):
        return name.replace(".", "/")
    dims = 0
    while name.endswith("[]"):
        dims += 1
        name = name[:-2].rstrip()
    base = _PRIM_NAME_TO_SIG.get(name) or "L" + name.replace(".", "/") + ";"
    return "[" * dims + base


def is_primitive(name: str) -> bool:
    """Java name of a primitive type (not void)."""
    return name in PRIMITIVE_NAMES


def is_array(name: str) -> bool:
    return name.endswith("[]")


def is_reference(name: str) -> bool:
    return name not in PRIMITIVE_NAMES and name != "void"


def array_element(name: str) -> str:
    """'int[][]' -> 'int[]'"""
    if not name.endswith("[]"):
        raise ValueError(f"{name} is not an array type")
    return name[:-2]


def array_dims(name: str) -> tuple[str, int]:
    """'int[][]' -> ('int', 2)"""
    dims = 0
    while name.endswith("[]"):
        name, dims = name[:-2], dims + 1
    return name, dims


def box(name: str) -> str | None:
    """'int' -> 'java.lang.Integer'; None for a non-primitive."""
    return BOXES.get(name)


def unbox(name: str) -> str | None:
    """'java.lang.Integer' -> 'int'; None if name is not a wrapper class."""
    return UNBOXES.get(name)
