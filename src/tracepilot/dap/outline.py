"""What an editor shows for a class whose source is nowhere on the source path: a line-aligned outline.

Frames of such a class still carry line numbers (from the class file's line table). The outline puts each
method's signature on the line where its code starts, so clicking a frame lands on the method it is in,
and says at the top what to add to `sourcePaths` to see the real text.
"""

from __future__ import annotations

from ..core.model_heap import ClassSummary


def outline_text(class_name: str, summary: ClassSummary | None) -> str:
    header = [
        f"// {class_name}: no source found on the source path.",
        "// Add the directory (or -sources.jar) that holds it to \"sourcePaths\" in the launch configuration.",
        "// Each method below sits on the line where its code starts; line numbers match the stack.",
    ]
    if summary is not None and summary.fields:
        header.append("// fields: " + ", ".join(f.signature for f in summary.fields))
    lines: dict[int, str] = {}
    for method in (summary.methods or []) if summary is not None else []:
        if method.lines:
            first, last = method.lines[0], method.lines[-1]
            text = f"    {'static ' if method.static else ''}{method.signature}  // lines {first}-{last}"
            lines[first] = f"{lines[first]}; {text.strip()}" if first in lines else text
    # The header takes the first lines unless a method starts there; then it goes above nothing and is
    # kept short: the method lines matter more than the note.
    last_line = max(lines, default=0)
    out = [""] * max(last_line, len(header))
    for number, text in lines.items():
        out[number - 1] = text
    row = 0
    for note in header:
        while row < len(out) and out[row]:
            row += 1
        if row == len(out):
            out.append("")
        out[row] = note
        row += 1
    return "\n".join(out) + "\n"
