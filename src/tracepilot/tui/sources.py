"""Source files ready to show: read, parsed and highlighted once per file (and again only when the file
changes), off the event loop. Switching the source pane between files (frames in other classes, a stop in
another file) then costs no I/O and no re-highlighting: a 20,000-line file takes ~0.5 s to parse and
highlight, which on the event loop would freeze the screen at every stop."""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.geometry import Size
from textual.widgets.text_area import Document, DocumentBase, SyntaxAwareDocument, WrappedDocument

from .java_syntax import java_highlight_query, java_language

TAB_WIDTH = 4  # TextArea's default indent_width
MAX_FILES = 16


@dataclass(eq=False)
class PreparedSource:
    """A document with its highlight map and line layout, built once; the source pane swaps it in."""

    path: Path | None
    text: str
    document: DocumentBase
    highlights: defaultdict[int, list[tuple[int, int | None, str]]]
    wrapped: WrappedDocument
    size: Size  # (widest line in cells, lines), as TextArea computes it for its virtual size
    query: Any = None  # the tree-sitter highlight query (None: plain text)
    stamp: tuple[int, int] | None = None  # (mtime_ns, size) of the file it was read from
    language: str | None = None


_queries: dict[str, Any] = {}
_queries_lock = threading.Lock()


def _highlight_query(document: Any, language: str) -> Any:
    with _queries_lock:
        query = _queries.get(language)
        if query is None:
            query = _queries[language] = document.prepare_query(java_highlight_query())
        return query


def prepare(text: str, language: str | None = "java", path: Path | None = None,
            stamp: tuple[int, int] | None = None) -> PreparedSource:
    """Parse, highlight and lay out `text` (CPU-bound: call it in a thread for big files)."""
    document: DocumentBase | None = None
    query = None
    highlights: defaultdict[int, list[tuple[int, int | None, str]]] = defaultdict(list)
    if language == "java":  # the one language the source pane highlights
        ts_language = java_language()
        if ts_language is not None:
            try:
                document = SyntaxAwareDocument(text, ts_language)
                query = _highlight_query(document, language)
            except Exception:  # noqa: BLE001 - no parser for it: show it as plain text
                document, query = None, None
    if document is None:
        document = Document(text)
    elif query is not None:
        # The same map TextArea._build_highlight_map builds, made here instead of on the event loop.
        for name, nodes in document.query_syntax_tree(query).items():
            for node in nodes:
                (start_row, start_col), (end_row, end_col) = node.start_point, node.end_point
                if start_row == end_row:
                    highlights[start_row].append((start_col, end_col, name))
                else:
                    highlights[start_row].append((start_col, None, name))
                    for row in range(start_row + 1, end_row):
                        highlights[row].append((0, None, name))
                    highlights[end_row].append((0, end_col, name))
    wrapped = WrappedDocument(document, width=0, tab_width=TAB_WIDTH)
    return PreparedSource(path, text, document, highlights, wrapped, document.get_size(TAB_WIDTH), query, stamp,
                          language if query is not None else None)


def plain(text: str) -> PreparedSource:
    """A short message (e.g. 'source not found …'): no highlighting, cheap enough for the event loop."""
    return prepare(text, None)


class SourceCache:
    """Prepared files by path, the most recent MAX_FILES kept; a changed file (mtime, size) is prepared again."""

    def __init__(self, max_files: int = MAX_FILES) -> None:
        self.max_files = max_files
        self._files: OrderedDict[Path, PreparedSource] = OrderedDict()
        self._loading: dict[Path, asyncio.Task[PreparedSource | None]] = {}

    def peek(self, path: Path) -> PreparedSource | None:
        """What was prepared for `path`, without touching the disk (for painting at once)."""
        prepared = self._files.get(path)
        if prepared is not None:
            self._files.move_to_end(path)
        return prepared

    async def load(self, path: Path) -> PreparedSource | None:
        """The prepared file (None if it cannot be read); reads and highlights in a thread. A caller that
        is cancelled (a newer refresh) leaves the loading to finish for the next one."""
        task = self._loading.get(path)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._load_and_keep(path))
            self._loading[path] = task
            task.add_done_callback(lambda _, p=path: self._loading.pop(p, None))
        return await asyncio.shield(task)

    async def _load_and_keep(self, path: Path) -> PreparedSource | None:
        prepared = await asyncio.to_thread(self._load, path, self._files.get(path))
        if prepared is None:
            self._files.pop(path, None)
            return None
        self._files[path] = prepared
        self._files.move_to_end(path)
        while len(self._files) > self.max_files:
            self._files.popitem(last=False)
        return prepared

    @staticmethod
    def _load(path: Path, cached: PreparedSource | None) -> PreparedSource | None:
        try:
            st = path.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        if cached is not None and cached.stamp == stamp:
            return cached
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        return prepare(text, "java" if path.suffix == ".java" else None, path, stamp)
