"""What a breakpoint on a class that is not loaded yet says: whether the class is the program's (its source on
the source path, its class file on the class path: "binds when it loads"), else the near names among the
program's own classes. The JDK's classes are never suggested: `java.nio.ByteOrder` is no answer to a typo in
`com.acme.shop.Order`."""

from __future__ import annotations

import asyncio
from typing import Any

from ..inspect.stack import is_library
from ..locations import suggest
from ..program_classes import class_path_classes, is_ours, source_path_classes


async def not_loaded_message(name: str, loaded: list[str], sources: Any) -> str:
    """The pending message of a breakpoint on class `name` (as typed), given the loaded class names. (The
    listings read the disk: in a worker thread, so the session's events keep flowing meanwhile.)"""
    on_source_path = await asyncio.to_thread(source_path_classes, sources)
    on_class_path = await asyncio.to_thread(class_path_classes, sources)
    where = [label for label, names in (("source path", on_source_path), ("class path", on_class_path))
             if is_ours(name, names)]
    if where:
        return f"pending: class {name} is not loaded yet; it is on the {' and '.join(where)}: binds when it loads"
    ours = {n for n in on_source_path | on_class_path if "$" not in n}
    ours |= {n for n in loaded if "$" not in n and not is_library(n)}
    close = suggest(name, sorted(ours))
    hint = f"; did you mean {' or '.join(close)}?" if close else (
        "; it is on neither the source path nor the class path: check the name, or add its sources (sourcepath)")
    return f"pending: class {name} is not loaded yet{hint}"
