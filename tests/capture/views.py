"""Captured values as the capture tests compare them: without what differs between runs (object handles)."""

from __future__ import annotations

import re


def plain(value) -> object:  # noqa: ANN001
    return (value.name, re.sub(r"@\d+", "@", value.text), value.kind, value.cut,
            [plain(c) for c in value.children])


def frames(capture) -> list:  # noqa: ANN001
    return [(f.location.class_name, f.location.method, f.location.line,
             None if f.locals is None else [plain(v) for v in f.locals]) for f in capture.frames]
