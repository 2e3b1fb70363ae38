"""A class file embedded in a Python module as base64 (`_DATA = \"\"\"...\"\"\"`): decoding it, and rewriting
the module's data from a rebuilt class file (copier_bytes.py, take_bytes.py)."""

from __future__ import annotations

import base64

_OPEN, _CLOSE = '_DATA = """\n', '\n"""\n'


def decode(data: str) -> bytes:
    return base64.b64decode("".join(data.split()))


def rewrite(module_file: str, class_file: str) -> None:
    """Put `class_file`'s bytes into `module_file`'s `_DATA`, 100 characters a line."""
    with open(class_file, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    lines = "\n".join(data[i:i + 100] for i in range(0, len(data), 100))
    with open(module_file, encoding="utf-8") as f:
        source = f.read()
    start = source.index(_OPEN) + len(_OPEN)
    end = source.index(_CLOSE, start)
    with open(module_file, "w", encoding="utf-8") as f:
        f.write(source[:start] + lines + source[end:])
