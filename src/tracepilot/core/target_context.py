"""Which target a call acts on (core/targets.py): set while a routed call runs, and named by a front end."""

from __future__ import annotations

import contextvars
from typing import Any

ACTING: contextvars.ContextVar[Any] = contextvars.ContextVar("tracepilot_acting_target", default=None)
CHOSEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("tracepilot_chosen_target", default=None)
