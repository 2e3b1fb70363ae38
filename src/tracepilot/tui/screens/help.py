"""The help screen, generated from the bindings the app and its panes actually have."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def _bindings(owner: type) -> list[Binding]:
    found: list[Binding] = []
    for item in getattr(owner, "BINDINGS", []):
        binding = item if isinstance(item, Binding) else Binding(*item)
        found.append(binding)
    return found


def help_text(app, sections: list[tuple[str, type]]) -> str:
    """Markup for the help screen: one table of keys per section (actions with a description only)."""
    lines: list[str] = []
    for title, owner in sections:
        rows = []
        for binding in _bindings(owner):
            if not binding.description:
                continue
            keys = " / ".join(app.get_key_display(Binding(key, binding.action))
                              for key in binding.key.split(","))
            rows.append(f"  [b]{keys:<18}[/b] {binding.description}")
        if rows:
            lines.append(f"[b u]{title}[/]")
            lines.extend(rows)
            lines.append("")
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    BINDINGS: list[BindingType] = [Binding("escape,q,f1,question_mark", "dismiss", "Close help")]

    def __init__(self, sections: list[tuple[str, type]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "tracepilot — keys (Esc closes)"
            yield Static(help_text(self.app, self.sections), id="help-text")
            yield Static(
                "The command line (:) takes the REPL's commands: jdb's (stop at, cont, step, next, where, "
                "print, locals, threads…) and gdb's aliases (b, c, n, s, finish, bt, p, info locals). "
                "Type `help` there for the full list. Ctrl+P lists every action.", id="help-footer")
