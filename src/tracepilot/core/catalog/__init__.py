"""The command catalog: every jdb/gdb command of the line interfaces, grouped by feature, bound to the
operation specs of tracepilot/commands.

    catalog = default_catalog()
    result = await catalog.execute(debugger, "stop at Foo:12 if x > 3", actor, selection)
    start, words = await catalog.completions(debugger, "stop at fixtures.Pla", selection)

framework.py holds the pieces (Command, Selection, CommandResult, the parser and the Catalog); each
other module registers the commands of one feature, in the order `help` lists them. A command's
`spec` is the operation it runs, which the MCP server offers as a tool or says why it does not.

The current thread and frame (`thread 3`, `up`, `frame 2`) belong to a front end, not to the debugger:
each front end keeps one `Selection` and passes it to every call. Nothing here imports a UI toolkit;
`CommandResult.text` is plain text, `.data` the model objects.
"""

from __future__ import annotations

from ...commands.syntax import ARG_KINDS, BREAK_OPTIONS, Arg, Token, breakpoint_id, split_commands, tokenize
from .framework import (
    CATEGORY_ORDER,
    DEFAULT_WAIT,
    Catalog,
    Command,
    CommandError,
    CommandResult,
    Context,
    Invocation,
    Selection,
    default_catalog,
    ok,
    returned_text,
)

__all__ = [
    "ARG_KINDS", "BREAK_OPTIONS", "CATEGORY_ORDER", "DEFAULT_WAIT", "Arg", "Catalog", "Command", "CommandError",
    "CommandResult", "Context", "Invocation", "Selection", "Token", "breakpoint_id", "default_catalog", "ok",
    "returned_text", "split_commands", "tokenize",
]

# Importing a feature module registers its commands; `help` and completion list them in this order.
# isort: off
from . import connection, execution, breakpoints, stack, data, watchers, threads, classes  # noqa: E402, F401
from . import captures, observation, session, targets  # noqa: E402, F401
# isort: on
