"""The help screen, generated from the bindings the app and its panes actually have."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..footer import is_face


def _bindings(owner: type) -> list[Binding]:
    found: list[Binding] = []
    for item in getattr(owner, "BINDINGS", []):
        binding = item if isinstance(item, Binding) else Binding(*item)
        if not is_face(binding):  # the footer's words for a key: help lists the key itself, once
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


MOVING = (
    "[b u]Moving around[/]\n"
    "  Every pane has a key, shown in its title: [b]1[/b] Source  [b]2[/b] Variables  [b]3[/b] Stack  "
    "[b]4[/b] Watches  [b]5[/b] Breakpoints  [b]6[/b] Threads  [b]7[/b] Events  [b]8[/b] Console  "
    "[b]9[/b] Captures.\n"
    "  Tab / Shift+Tab go round the panes; the focused one has a bright border. [b]:[/b] opens the command line, "
    "Esc leaves it.\n"
    "  In Variables, [b]→[/b] expands an object and [b]←[/b] collapses it (or goes to its parent); "
    "[b]Enter[/b] on a value or [b]v[/b] shows it whole, where [b]c[/b] copies it.\n"
    "  [b]/[/b] searches the source: Enter goes to the first match, [b]n[/b] / [b]N[/b] (or F3 / F2; Shift+F3 "
    "too where the terminal passes it) to the next / previous, Esc ends the search (then [b]n[/b] steps over "
    "again). [b]:54[/b] (or [b]Ctrl+G[/b]) goes to line 54.\n"
    "  In Captures, [b]Enter[/b] opens a capture in Stack and Variables as it was at its hit (frozen, not the "
    "live program); [b]Esc[/b] goes back to the live view.\n"
    "  After the program ends, [b]Ctrl+R[/b] restarts it with the same command line and breakpoints.\n"
)


class HelpScreen(ModalScreen[None]):
    BINDINGS: list[BindingType] = [Binding("escape,q,f1,question_mark", "dismiss", "Close help")]

    def __init__(self, sections: list[tuple[str, type]], commands: str = "") -> None:
        super().__init__()
        self.sections = sections
        self.commands = commands  # the command catalog's list (`:help`), shown after the keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box") as box:
            box.border_title = "tracepilot — keys (Esc closes)"
            yield Static(MOVING, id="help-moving")
            yield Static(help_text(self.app, self.sections), id="help-text")
            if self.commands:
                yield Static(Text("Commands (the : command line)\n", style="bold underline") + Text(self.commands),
                             id="help-commands")
            yield Static(
                "The command line (:) takes the REPL's commands: jdb's (stop at, cont, step, next, where, "
                "print, locals, threads…) and gdb's aliases (b, c, n, s, finish, bt, p, info locals). "
                "Type `help` there for the full list. Ctrl+P lists every action.", id="help-footer")
