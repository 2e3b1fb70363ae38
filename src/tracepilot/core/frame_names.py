"""Methods named as people read them: "com.acme.Storm.main"; a lambda's body (javac's "lambda$main$0") and the
class the JDK makes for a lambda ("Storm$$Lambda/0x00007f56fc000a08.run", no source, no lines) both
"lambda in com.acme.Storm.main". Every front end shows frames through this (CodeLocation.function). Classes by
their simple names the same way: a lambda object's class "Storm$$Lambda", not its hidden class's address."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

LAMBDA_BODY = re.compile(r"^lambda\$(.*)\$\d+$")  # javac's name for a lambda's body: lambda$main$0
LAMBDA_CLASS = "$$Lambda"  # in the name of the class the JDK makes for a lambda (a hidden class)
# A hidden class's name ends in its address: "Storm$$Lambda$14/0x00007f56fc000a08" (".0x..." in its signature)
HIDDEN_SUFFIX = re.compile(r"[./]0x[0-9a-fA-F]+(?=(?:\[\])*$)")


def function_name(class_name: str, method: str, lambda_of: str | None = None, short: bool = False) -> str:
    """`short`: without the package ("Storm.main", "lambda in Storm.main"). `lambda_of`: for a frame of a
    JDK-made lambda class, the method that wrote the lambda (known from the frame it calls)."""
    owner = class_name.rsplit(".", 1)[-1] if short else class_name
    if LAMBDA_CLASS in class_name:
        if lambda_of:
            cls, _, written_in = lambda_of.rpartition(".")
            return f"lambda in {cls.rsplit('.', 1)[-1] if short else cls}.{written_in}"
        outer = class_name.split(LAMBDA_CLASS, 1)[0]
        return f"lambda in {outer.rsplit('.', 1)[-1] if short else outer}"
    body = LAMBDA_BODY.match(method)
    if body:
        where = {"static": "<clinit>", "new": "<init>", "null": ""}.get(body.group(1), body.group(1))
        return f"lambda in {owner}.{where}" if where else f"lambda in {owner}"
    return f"{owner}.{method}"


def simple_class_name(class_name: str) -> str:
    """The class name without its package, as a person reads it: "Storm$$Lambda" for a lambda's hidden class
    ("com.acme.Storm$$Lambda$14/0x00007f56fc000a08", on JDK 21+ without the "$14"; IntelliJ shows it so),
    a hidden class's name without its address."""
    simple = HIDDEN_SUFFIX.sub("", class_name).rsplit(".", 1)[-1]
    if LAMBDA_CLASS in simple:
        outer, _, rest = simple.partition(LAMBDA_CLASS)
        simple = outer + LAMBDA_CLASS + rest[rest.index("["):] if "[" in rest else outer + LAMBDA_CLASS
    return simple


def name_lambda_classes(frames: Sequence[Any]) -> None:
    """A frame of a JDK-made lambda class calls the lambda's body in the frame above it: name the method that
    wrote the lambda from there ("lambda in Storm.main"), not the hidden class ("0x00007f56fc000a08.run").
    `frames`: FrameInfo, top first."""
    for above, frame in zip(frames, frames[1:], strict=False):
        loc, body = frame.location, above.location
        written_in = LAMBDA_BODY.match(body.method)
        if LAMBDA_CLASS in loc.class_name and written_in and written_in.group(1) != "null" \
                and LAMBDA_CLASS not in body.class_name:
            loc.lambda_of = body.function().removeprefix("lambda in ")


def is_lambda_class(class_name: str) -> bool:
    """The class the JDK makes for a lambda (no source, no lines: its frame calls the lambda's body)."""
    return LAMBDA_CLASS in class_name
