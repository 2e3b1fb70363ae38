"""Captures over DAP: an `output` event whose variablesReference an editor expands into the capture's frames
and values. They are frozen (taken at the hit), so their references outlive resumes, unlike the live ones
of handles.py; they get ids far above those (which restart low at every resume), bounded in number."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

FIRST_ID = 1 << 24  # above any live variablesReference of a session
KEPT = 20_000  # references kept (oldest dropped first)


class FrozenValues:
    def __init__(self) -> None:
        self._next = FIRST_ID
        self._children: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()

    def owns(self, reference: Any) -> bool:
        return isinstance(reference, int) and reference in self._children

    def variables(self, reference: int) -> list[dict[str, Any]]:
        return self._children.get(reference, [])

    def _keep(self, items: list[dict[str, Any]]) -> int:
        reference = self._next
        self._next += 1
        self._children[reference] = items
        while len(self._children) > KEPT:
            self._children.popitem(last=False)
        return reference

    def _value(self, value: Any) -> dict[str, Any]:
        text = value.text + (f"  [{value.cut}]" if value.cut else "")
        ref = self._keep([self._value(c) for c in value.children]) if value.children else 0
        return {"name": value.name, "value": text, "type": value.type, "variablesReference": ref}

    def capture(self, capture: Any) -> int:
        """The reference of a capture: its frames (each with its variables) and its expressions."""
        items = []
        for frame in capture.frames:
            loc = frame.location
            where = f"{loc.class_name}.{loc.method}:{loc.line}"
            ref = self._keep([self._value(v) for v in frame.locals]) if frame.locals else 0
            items.append({"name": f"#{frame.index}", "value": where, "variablesReference": ref})
        if capture.expressions:
            items.append({"name": "expressions", "value": f"{len(capture.expressions)} value(s)",
                          "variablesReference": self._keep([self._value(v) for v in capture.expressions])})
        if capture.cuts:
            items.append({"name": "cut by the limits", "value": "; ".join(capture.cuts[:5])
                          + (f" (+{len(capture.cuts) - 5} more)" if len(capture.cuts) > 5 else ""),
                          "variablesReference": 0})
        return self._keep(items)
