"""Every request the adapter handles, and every capability it declares, is exercised by a DAP scenario.

The scenarios (tests/dap/*.mjs) are the tests; this checks their text for the request (DebugClient's
`<name>Request(` or `customRequest('<name>'`) or argument that uses each capability, so declaring a
capability without a test, or adding a handler without one, fails here.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from tracepilot.dap.adapter import CAPABILITIES, Adapter

DAP_DIR = Path(__file__).resolve().parent

# Capability -> what a scenario must contain to exercise it.
CAPABILITY_USES = {
    "supportsConfigurationDoneRequest": "configurationDoneRequest(",
    "supportsConditionalBreakpoints": "condition: 'i == 3'",
    "supportsHitConditionalBreakpoints": "hitCondition:",
    "supportsLogPoints": "logMessage:",
    "supportsFunctionBreakpoints": "setFunctionBreakpointsRequest(",
    "supportsEvaluateForHovers": "context: 'hover'",
    "supportsSetVariable": "setVariableRequest(",
    "supportsSetExpression": "customRequest('setExpression'",
    "supportsTerminateRequest": "terminateRequest(",
    "supportTerminateDebuggee": "terminateDebuggee: true",
    "supportsExceptionFilterOptions": "filterOptions:",
    "supportsDelayedStackTraceLoading": "startFrame: 1",
    "supportsRestartFrame": "restartFrameRequest(",
    "supportsDataBreakpoints": "setDataBreakpointsRequest(",
    "supportsExceptionInfoRequest": "customRequest('exceptionInfo'",
}


def _scenarios() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(DAP_DIR.glob("*.mjs")))


def _uses(text: str, request: str) -> bool:
    return f"{request}Request(" in text or f"customRequest('{request}'" in text


def test_every_handled_request_is_exercised() -> None:
    text = _scenarios()
    handled = [name.removeprefix("on_") for name, _ in inspect.getmembers(Adapter, inspect.iscoroutinefunction)
               if name.startswith("on_")]
    assert len(handled) > 20
    missing = [r for r in handled if not _uses(text, r)]
    assert not missing, f"requests without a scenario: {missing}"


def test_every_declared_capability_is_exercised() -> None:
    text = _scenarios()
    declared = [name for name, value in CAPABILITIES.items() if value is True]
    unknown = [c for c in declared if c not in CAPABILITY_USES]
    assert not unknown, f"declared capabilities this test does not know how to check: {unknown}"
    missing = [c for c in declared if CAPABILITY_USES[c] not in text]
    assert not missing, f"declared capabilities without a scenario: {missing}"


def test_every_exception_filter_is_exercised() -> None:
    text = _scenarios()
    for spec in CAPABILITIES["exceptionBreakpointFilters"]:
        name = spec["filter"]
        assert re.search(rf"filters: \[[^\]]*'{name}'|filterId: '{name}'", text), f"exception filter {name} untested"
