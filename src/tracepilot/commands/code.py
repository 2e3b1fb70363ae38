"""Operations that change the running code: hot swap, popping frames, forcing a return."""

from __future__ import annotations

import os

from . import params
from .spec import Effect, Param, Spec, thread_arg

SPECS = (
    Spec(
        "hotswap", "Redefine loaded classes from new class files (method bodies only); breakpoints re-installed.",
        Effect.CHANGE, tool="hotswap", method="hotswap", commands=("redefine",),
        call=lambda d, a: d.hotswap(os.path.expanduser(a.path), a.since, actor=a.actor),
        params=(
            Param("path", str, description="a classes directory or .class file(s) compiled with -g"),
            Param("since", float | None, None, "only class files modified after this Unix time (default: all)"),
        )),
    Spec(
        "pop_frames", "Drop frames up to and including `frame`, so the method is re-entered from its call.",
        Effect.CHANGE, tool="pop_frames", method="pop_frames", commands=("pop", "reenter"),
        call=lambda d, a: d.pop_frames(a.frame, thread_arg(a.thread), actor=a.actor),
        params=(params.frame(), params.thread())),
    Spec(
        "force_return", "Return from the top frame now with the given value, skipping the rest of the method.",
        Effect.CHANGE, tool="force_return", method="force_return", commands=("return",),
        call=lambda d, a: d.force_return(a.value, thread_arg(a.thread), actor=a.actor),
        params=(
            Param("value", str, description='return value as a Java expression ("0", "null", "x + 1"); "" for void'),
            params.thread(),
        )),
)

