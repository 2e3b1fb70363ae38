"""The `classes` answer: loaded classes matching a pattern, with their members when asked."""

from __future__ import annotations

from typing import Any

from ..errors import NotFound
from ..locations import suggest
from ..model import CutList
from ..model_heap import ClassSummary, MemberInfo
from .heap import match_classes

MAX_CLASSES = 500  # classes listed by one `classes` answer; the rest is counted ("... N more")


async def list_classes(vm: Any, pattern: str, members: bool) -> list[ClassSummary]:
    types = [t for t in match_classes(await vm.all_classes(refresh=True), pattern) if not t.is_array]
    if members:  # (their members are read by ID)
        types = await vm.acquire(types[:MAX_CLASSES]) + types[MAX_CLASSES:]
    if not types:
        close = suggest(pattern, [t.name for t in await vm.all_classes() if not t.is_array])
        hint = "" if "*" in pattern else "use a pattern like com.acme.* (the class may not be loaded yet)"
        if close:  # the near miss first: it is what the caller most likely meant
            hint = f"did you mean {' or '.join(close)}?" + (f" Else {hint}" if hint else "")
        raise NotFound(f"no loaded class matches '{pattern}'", close, hint)
    result = []
    for t in types[:MAX_CLASSES]:
        summary = ClassSummary(t.name, "interface" if t.is_interface else "class")
        if members:
            summary.source_file = await vm.source_file(t.id)
            summary.methods = []
            for m in await vm.line_tables(t.id):
                lines = m.line_numbers
                summary.methods.append(MemberInfo(m.name, "method", f"{m.return_type} {m.display()}", m.is_static,
                                                  [lines[0], lines[-1]] if lines else []))
            summary.fields = [MemberInfo(f.name, "field", f"{f.type_name} {f.name}", f.is_static)
                              for f in await vm.fields(t.id)]
        result.append(summary)
    return CutList(result, len(types)) if len(types) > len(result) else result
