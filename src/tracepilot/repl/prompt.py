"""The prompt_toolkit side of the REPL: history file, auto-suggest and catalog completion."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, InMemoryHistory

if TYPE_CHECKING:
    from ..core.catalog import Catalog, Selection


class Completing(Protocol):
    """What completion needs of the REPL (a Protocol, so this module does not import repl/app.py, which
    imports it)."""

    catalog: Catalog
    debugger: Any
    selection: Selection


class CatalogCompleter(Completer):
    """Completes the last word from the catalog (commands, classes, members, locals, threads, ids)."""

    def __init__(self, repl: Completing) -> None:
        self.repl = repl

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        return []  # everything needs the VM: see get_completions_async

    async def get_completions_async(self, document: Document,
                                    complete_event: CompleteEvent) -> AsyncGenerator[Completion, None]:
        line = document.text_before_cursor
        segment = line.rsplit(";", 1)[-1].lstrip()  # complete the last command of "cmd; cmd"
        start, words = await self.repl.catalog.completions(self.repl.debugger, segment, self.repl.selection)
        typed = len(segment) - start
        for word in words:
            yield Completion(word, start_position=-typed)


def make_prompt_session(repl: Completing, history_file: Path, **io: Any) -> PromptSession:
    """`io` may give prompt_toolkit's `input`/`output` (tests drive the prompt through a pipe)."""
    try:
        history_file.parent.mkdir(parents=True, exist_ok=True)
        history = FileHistory(str(history_file))
    except OSError:
        history = InMemoryHistory()
    return PromptSession(history=history, auto_suggest=AutoSuggestFromHistory(), completer=CatalogCompleter(repl),
                         complete_while_typing=False, enable_history_search=True, **io)
