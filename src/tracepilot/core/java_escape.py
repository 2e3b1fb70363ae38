"""Java's string escapes (`\\n`, `\\"`, `\\u0000`): how summaries quote a string, and so how a secret's text
appears in them (core/secrets.py learns both forms). Below everything: it imports nothing of ours."""

from __future__ import annotations


def escape_java(text: str) -> str:
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


_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f"}
