"""Source views: lines around a location with breakpoint markers and the current-line marker."""

from __future__ import annotations

from pathlib import Path

from ..errors import NotFound
from ..locations import LineSpec, MethodSpec, parse_location
from ..model import BreakpointInfo, CodeLocation, SourceLine, SourceView
from ..sources import SourcePath, class_name_for_file, read_lines
from .stack import is_library


def outer(class_name: str) -> str:
    return class_name.split("$", 1)[0]


def _bp_lines(breakpoints: list[BreakpointInfo], class_name: str | None, path: Path | None) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for bp in breakpoints:
        lines: set[int] = set()
        for loc in bp.locations:
            if class_name and outer(loc.class_name) == outer(class_name) and loc.line > 0:
                lines.add(loc.line)
        if not lines and bp.kind == "line":
            try:
                spec = parse_location(bp.spec)
            except Exception:
                spec = None
            if isinstance(spec, LineSpec):
                same_class = spec.class_name and class_name and (
                    outer(class_name) == spec.class_name or outer(class_name).endswith("." + spec.class_name))
                same_file = spec.file and path is not None and str(path).endswith(spec.file.lstrip("./"))
                if same_class or same_file:
                    lines.add(spec.line)
        for line in lines:
            found.setdefault(line, []).append(bp.id)
    return found


def render_view(path: Path | None, class_name: str | None, line: int | None, context: int,
                breakpoints: list[BreakpointInfo], current: CodeLocation | None) -> SourceView:
    view = SourceView(class_name=class_name, path=str(path) if path else None, line=line)
    if path is None:
        if class_name and not is_library(class_name):  # JDK sources are rarely wanted: no complaint about them
            view.message = (f"source of {class_name} not found on the source path (add its root directory: the "
                            "sourcepath argument of attach/launch, or --sourcepath)")
        return view
    text_lines = read_lines(path)
    center = line if line and line > 0 else 1
    first = max(1, center - context)
    last = min(len(text_lines), center + context)
    markers = _bp_lines(breakpoints, class_name, path)
    current_line = None
    if current is not None and class_name and outer(current.class_name) == outer(class_name):
        current_line = current.line
    for n in range(first, last + 1):
        view.lines.append(SourceLine(n, text_lines[n - 1], n == current_line, markers.get(n, [])))
    if line and line > len(text_lines):
        view.message = f"{path.name} has only {len(text_lines)} lines"
    return view


def resolve_text(sources: SourcePath, text: str, loaded: list[str]) -> tuple[Path | None, str | None, int | None]:
    """(path, class name, line) for what a user typed: Class:line, File.java:line, a path, a class or a file."""
    text = text.strip()
    line: int | None = None
    where = text
    try:
        spec = parse_location(text)
    except Exception:
        spec = None
    if isinstance(spec, LineSpec):
        line = spec.line
        where = spec.file or spec.class_name or text
    elif isinstance(spec, MethodSpec) and spec.class_name in loaded:
        where = spec.class_name
    if where.endswith(".java") or "/" in where:
        path = sources.find_file(where)
        if path is None:
            raise NotFound(f"no source file {where} on the source path", hint="add its root with --sourcepath")
        return path, class_name_for_file(path), line
    candidates = [c for c in loaded if c == where or outer(c).endswith("." + where) or outer(c) == where]
    class_name = candidates[0] if candidates else where
    path = sources.find(outer(class_name))
    if path is None and not candidates:
        from ..locations import suggest

        raise NotFound(f"no class or source named '{where}'", suggest(where, loaded))
    return path, class_name, line
