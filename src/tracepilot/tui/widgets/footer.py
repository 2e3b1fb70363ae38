"""The footer: Textual's Footer, rebuilt only when the keys it shows change.

Textual's Footer recomposes (removes and mounts every key widget) on each "bindings changed" signal of its
screen, and the screen sends one for every focus move, every `refresh_bindings` call and every stack change:
several in one tick, most of them leaving the keys exactly as they were (measured on tests/tui/
test_keyboard.py: 186 recomposes for 72 key presses, 119 of them identical to the footer they replaced). Here
the signals of one tick are folded into one check after the next refresh (when Textual's own footer would
recompose), and the footer recomposes only if what it would show differs from what it shows: the same keys,
words, order and enabled state as Textual's footer, through its public API only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from textual.widget import Widget
from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen


class KeysFooter(Footer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.keys_ready = False  # Textual's Footer was told once that its screen's bindings are ready
        self.keys_shown: tuple[Any, ...] | None = None  # what the last compose showed (None: nothing yet)
        self.keys_check_pending = False  # a check is due after the next refresh
        self.composed = 0  # how many times the keys were built (tests count them)

    def keys_to_show(self) -> tuple[Any, ...]:
        """Everything Footer.compose reads to build its keys, as a comparable value."""
        app = self.app
        active = self.screen.active_bindings
        keys = tuple((binding.key, app.get_key_display(binding), binding.description, binding.action,
                      binding.group, binding.tooltip, enabled, tooltip)
                     for (_, binding, enabled, tooltip) in active.values() if binding.show)
        palette = None
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            found = active.get(app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                palette = (binding.key, app.get_key_display(binding), binding.description, binding.action,
                           binding.tooltip, enabled, tooltip)
        return keys, palette

    def compose(self) -> Iterator[Widget]:
        keys = self.keys_to_show() if self.is_attached else None
        shown = False
        for widget in super().compose():
            shown = True
            yield widget
        # (Footer composes nothing until its screen first said its bindings are ready: the next check recomposes.)
        self.keys_shown = keys if shown else None
        self.composed += 1

    def bindings_changed(self, screen: Screen) -> None:
        if not self.keys_ready:  # the first signal goes to Footer: it notes the bindings are ready and composes
            self.keys_ready = True
            super().bindings_changed(screen)
            return
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return  # (as Footer: the screen's next signal, e.g. on the app's focus coming back, shows the keys)
        if not self.keys_check_pending:
            self.keys_check_pending = True
            self.call_after_refresh(self.show_keys)

    async def show_keys(self) -> None:
        """Recompose if the keys to show differ from the keys shown."""
        self.keys_check_pending = False
        if self.is_attached and self.keys_to_show() != self.keys_shown:
            await self.recompose()
