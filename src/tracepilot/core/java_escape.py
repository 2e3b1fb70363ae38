"""Java's string escapes (`\\n`, `\\"`, `\\u0000`): how summaries quote a string, and so how a secret's text
appears in them (core/secrets.py learns both forms). Below everything: it imports nothing of ours."""

from __future__ import annotations

import re


def escape_java(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:
        return text  # (most texts: nothing to escape, found without a Python loop)
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F or 0xD800 <= code <= 0xDFFF or ch in "\u2028\u2029":
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


# What the loop above escapes: the control characters (_ESCAPES' among them), '"', '\\', DEL, surrogates and
# the two line separators.
_NEEDS_ESCAPE = re.compile("[\x00-\x1f\x7f\"\\\\\ud800-\udfff\u2028\u2029]")
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f"}
