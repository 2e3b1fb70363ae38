"""Source views: lines around a location with breakpoint markers and the current-line marker."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import NotFound
from ..locations import LineSpec, MethodSpec, parse_location, suggest
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
                breakpoints: list[BreakpointInfo], current: CodeLocation | None,
                span: tuple[int, int] | None = None) -> SourceView:
    """Lines around `line` (`context` each side), or the lines of `span` (a method) when given."""
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
    if span is not None:
        first, last = span[0], min(len(text_lines), span[1], span[0] + MAX_METHOD_LINES - 1)
    markers = _bp_lines(breakpoints, class_name, path)
    current_line = None
    if current is not None and class_name and outer(current.class_name) == outer(class_name):
        current_line = current.line
    for n in range(first, last + 1):
        view.lines.append(SourceLine(n, text_lines[n - 1], n == current_line, markers.get(n, [])))
    if line and line > len(text_lines):
        view.message = f"{path.name} has only {len(text_lines)} lines"
    elif span is not None and span[1] > last:
        view.message = f"… the method goes on to line {span[1]}: source {class_name}:{last + context + 1}"
    return view


def explain_missing(view: SourceView, sources: SourcePath) -> SourceView:
    """A view without a file says why when the source path knows (a sources-jar entry too large to extract)."""
    if view.path is None and view.class_name:
        view.message = sources.not_shown_because(view.class_name) or view.message
    return view


@dataclass
class SourceTarget:
    """What a typed location shows: a file, its class, the line asked for, and for a method the lines of
    its declaration and body."""

    path: Path | None
    class_name: str | None
    line: int | None = None
    span: tuple[int, int] | None = None


MAX_METHOD_LINES = 80
_MODIFIERS = "public|protected|private|static|final|abstract|synchronized|native|default|strictfp"
_NOT_A_TYPE = r"(?!(?:return|new|throw|else|case|yield|assert)\b)"


def resolve_text(sources: SourcePath, text: str, loaded: list[str]) -> SourceTarget:
    """What a user typed: Class:line, File.java:line, a path, a class, a file, or a method (Class.method,
    simple or qualified class name, loaded or not)."""
    text = text.strip()
    try:
        spec = parse_location(text)
    except Exception:
        spec = None
    if isinstance(spec, LineSpec):
        where = spec.file or spec.class_name or text
        if spec.file or "/" in where:
            return _file_target(sources, where, spec.line)
        path, class_name = _class_source(sources, where, loaded)
        if path is None and class_name is None:
            raise NotFound(f"no class or source named '{where}'", suggest(where, loaded))
        return SourceTarget(path, class_name or where, spec.line)
    if text.endswith(".java") or "/" in text:
        return _file_target(sources, text, None)
    path, class_name = _class_source(sources, text, loaded)  # "com.acme.Foo" is a class before a method
    if path is not None or class_name is not None:
        return SourceTarget(path, class_name or text, None)
    if isinstance(spec, MethodSpec):
        path, class_name = _class_source(sources, spec.class_name, loaded)
        if path is not None:
            return _method_target(path, class_name or spec.class_name, spec.method)
        if class_name is not None:
            return SourceTarget(None, class_name, None)
    raise NotFound(f"no class or source named '{text}'", suggest(text, loaded))


def _file_target(sources: SourcePath, where: str, line: int | None) -> SourceTarget:
    path = sources.find_file(where)
    if path is None:
        raise NotFound(f"no source file {where} on the source path", hint="add its root with --sourcepath")
    return SourceTarget(path, class_name_for_file(path), line)


def _class_source(sources: SourcePath, name: str, loaded: list[str]) -> tuple[Path | None, str | None]:
    """(source file, loaded class name) of a qualified or simple class name; (None, None) if neither exists."""
    exact = [c for c in loaded if c == name]
    by_simple = [c for c in loaded if c.endswith("." + name) or outer(c) == name or outer(c).endswith("." + name)]
    candidates = exact or by_simple
    class_name = candidates[0] if candidates else None
    if class_name is not None:
        return sources.find(outer(class_name)), class_name
    if "." in name:
        return sources.find(outer(name)), None
    return sources.find_file(f"{outer(name)}.java"), None


def _method_target(path: Path, class_name: str, method: str) -> SourceTarget:
    """The declaration of `method` in the file, through the end of its body."""
    lines = read_lines(path)
    simple = outer(class_name).rsplit(".", 1)[-1] if method == "<init>" else method
    constructor = simple == class_name.rsplit(".", 1)[-1].rsplit("$", 1)[-1] or method == "<init>"
    type_part = r"(?:[\w$.<>\[\]?,]+(?:\[\])*\s+)" + ("?" if constructor else "")
    declaration = re.compile(
        rf"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:{_MODIFIERS})\s+)*(?:<[^>]*>\s*)?{_NOT_A_TYPE}{type_part}"
        rf"{re.escape(simple)}\s*\(")
    for number, text in enumerate(lines, start=1):
        if declaration.match(text) and not text.rstrip().endswith(";"):
            return SourceTarget(path, class_name, number, (number, _body_end(lines, number)))
    names = sorted(set(re.findall(r"\b([a-z_$][\w$]*)\s*\([^;]*\)\s*(?:throws[^{]*)?\{", "\n".join(lines))))
    raise NotFound(f"no method {method} declared in {path.name}", suggest(method, names))


def _body_end(lines: list[str], first: int) -> int:
    """The line closing the body that opens on or after `first` (braces in strings and comments aside)."""
    depth, opened = 0, False
    for number in range(first, min(len(lines), first + 2000) + 1):
        code = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|//.*', "", lines[number - 1])
        for ch in code:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
        if opened and depth <= 0:
            return number
        if not opened and code.rstrip().endswith(";"):
            return number  # abstract or native: no body
    return first
