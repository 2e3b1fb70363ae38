"""The footer's words for the keys, per width, through public Textual API only.

Textual has no public way to change a binding's words or whether the footer shows it at run time. So a key the
footer shows is declared twice: its *face*, `footer('<action>', min_width, max_width)`, with the footer's word
for that range of widths, and the key itself (show=False) with the long description that help lists. The
owner's `check_action` hides a face outside its widths (False: Textual then tries the key's next binding, the
real one, so the key works at every width) and otherwise answers as the action does (None greys it out);
pressing a shown face runs its action (the owner's `action_footer`). The width is the App's `footer_width`
(set by `label_keys`)."""

from __future__ import annotations

import re
from typing import Any

from textual.binding import Binding

FACE = re.compile(r"footer\('(\w+)'")
NO_LIMIT = 1_000_000


def faces(key: str, action: str, words: list[tuple[str | None, int, int]], *, priority: bool = False) -> list[Binding]:
    """The footer faces of one key: (word, min_width, max_width) each; a None word shows nothing there."""
    return [Binding(key, f"footer('{action}', {low}, {high})", word, priority=priority)
            for word, low, high in words if word]


def is_face(binding: Binding) -> bool:
    return FACE.match(binding.action) is not None


def face_action(action: str) -> str:
    """The action a footer face stands for (a plain action names itself)."""
    found = FACE.match(action)
    return found.group(1) if found else action


def face_state(owner: Any, parameters: tuple[object, ...]) -> bool | None:
    """check_action's answer for a face of `owner` (an App or a widget): hidden outside its widths, else as
    its action."""
    action, low, high = parameters
    width = getattr(owner.app, "footer_width", None)
    if width is None:
        width = owner.app.size.width
    if not low <= width < high:
        return False
    return owner.check_action(action, ())

