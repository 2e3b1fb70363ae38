"""Issue 17, point 2: --redact is not bypassed by reflection or a target's own toString(), on a real JVM.

Redaction masks by name; reflection reads a field by a computed name and toString() reads it inside the
target, so under --redact the evaluator refuses both (and says why). Without --redact they work.
"""

from __future__ import annotations

import pytest

from tracepilot.core.debugger import Debugger
from tracepilot.core.errors import DebuggerError, EvaluationError

pytestmark = pytest.mark.timeout(90)

LEAKS = [
    'this.getClass().getDeclaredField("pass" + "word").get(this)',
    "getClass().getDeclaredFields()[2].get(this)",
    'java.lang.invoke.MethodHandles.lookup()',
    "account.toString()",
    '"account: " + account',
    "String.valueOf(account.toString())",
]


async def _stopped_in_compute(jvm_factory, default_jdk, java_source_root, line_of, redact: bool) -> Debugger:
    debugger = Debugger(redact=redact, sourcepath=[str(java_source_root)])
    jvm = jvm_factory("Findings", "300", jdk=default_jdk)
    await debugger.attach(jvm.address, timeout=20)
    await debugger.breakpoint_set(f"fixtures.Findings:{line_of('findings-compute')}")
    result = await debugger.resume(timeout=30)
    assert result.stopped, result
    return debugger


async def test_reflection_and_secret_printing_to_string_are_refused_under_redact(jvm_factory, default_jdk,
                                                                                  java_source_root, line_of):
    debugger = await _stopped_in_compute(jvm_factory, default_jdk, java_source_root, line_of, redact=True)
    try:
        for expression in LEAKS:
            with pytest.raises(EvaluationError) as caught:
                view = await debugger.evaluate(expression)
                pytest.fail(f"{expression} answered {view.text}")
            assert "hunter2" not in str(caught.value)
            assert "--redact" in str(caught.value), caught.value
        # By name it is masked, and ordinary calls still work.
        assert (await debugger.evaluate("this.password")).text == "<redacted>"
        assert (await debugger.evaluate("account.user.length()")).text == "5"
        assert "Findings@" in (await debugger.evaluate("this.toString()")).text  # Object's own: no fields
    finally:
        await debugger.close()


async def test_without_redact_reflection_still_works(jvm_factory, default_jdk, java_source_root, line_of):
    debugger = await _stopped_in_compute(jvm_factory, default_jdk, java_source_root, line_of, redact=False)
    try:
        shown = await debugger.evaluate('this.getClass().getDeclaredField("pass" + "word").get(this)')
        assert "hunter2-REFLECT" in shown.text
        assert "hunter2-TOSTRING" in (await debugger.evaluate("account.toString()")).text
    finally:
        await debugger.close()


# -- issue 25, point 3: every value that leaves the debugger, wherever it came from -----------------------

SECRET_TEXTS = ("hunter2", "cfg-PASSWORD", "props-SECRET", "s3-MAP", "pw-LOCAL", "tok-STATIC")

# Calls whose result can carry a secret-bearing object's or map's whole content, and exception messages
# quoting a secret: each is refused or answers with the secret replaced by <redacted>.
OUTPUT_LEAKS = [
    "String.valueOf(u)",
    "java.util.Objects.toString(u)",
    'String.format("%s", u)',
    "new StringBuilder().append(u)",
    "new StringBuilder().append(u).toString()",
    "java.util.List.of(u).toString()",
    "java.util.Arrays.toString(users)",
    "login.toString()",
    '"" + login',
    'cfg.get("pass" + "word")',
    'cfg.get("pass" + "word").trim()',
    "cfg.toString()",
    "cfg.values()",
    "cfg.values().toString()",
    "new java.util.ArrayList(cfg.values())",
    "new java.util.HashMap(cfg).values()",
    'String.join(",", cfg.values())',
    'cfg.get("pass" + "word").toUpperCase()',
    'props.getProperty("db." + "pass" + "word")',
    "props.toString()",
    "Integer.parseInt(u.password)",
    'Integer.parseInt((String) cfg.get("pass" + "word"))',
    "Integer.parseInt(passwordOf(u))",
]


def _no_secret(text: str, what: str) -> None:
    leaked = [s for s in SECRET_TEXTS if s in text]
    assert not leaked, f"{what} leaked {leaked}: {text[:600]}"


async def _answer(debugger: Debugger, expression: str) -> str:
    try:
        return (await debugger.evaluate(expression)).text
    except EvaluationError as error:
        return str(error)


async def test_redact_holds_at_the_output_for_every_leak_of_issue_25(jvm_factory, jdk, java_source_root,
                                                                      line_of):
    from tracepilot.core import render

    debugger = Debugger(redact=True, sourcepath=[str(java_source_root)])
    jvm = jvm_factory("Secrets", jdk=jdk)
    try:
        await debugger.attach(jvm.address, timeout=20)
        await debugger.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-leaks')}")
        stop = await debugger.resume(timeout=30)
        assert stop.stopped, stop
        for expression in OUTPUT_LEAKS:
            _no_secret(await _answer(debugger, expression), expression)
        # Ordinary values still show, so redaction is not a blanket.
        assert (await debugger.evaluate('cfg.get("host")')).text == '"db.local"'
        assert (await debugger.evaluate("u.name.length()")).text == "5"
        # A map's entry node opened by inspect: its value sits in a field named `value`.
        node = render.inspection(await debugger.inspect("cfg.head"))
        _no_secret(node, "inspect cfg.head")
        assert '"password"' in node and "<redacted>" in node  # the key shows, its value does not
        _no_secret(render.inspection(await debugger.inspect("cfg.values()")), "inspect cfg.values()")
        _no_secret(render.inspection(await debugger.inspect("cfg.entrySet()")), "inspect cfg.entrySet()")
        # mark and referrers on a secret, and the marks listed later.
        for call in (debugger.mark("u.password", "pw"), debugger.referrers("u.password"), debugger.marks()):
            try:
                _no_secret(render.render(await call), "mark/referrers")
            except DebuggerError as error:
                _no_secret(str(error), "mark/referrers")
        # Watches, a condition that fails and a logpoint that fails, all quoting the secret in an exception.
        await debugger.watch_add("Integer.parseInt(u.password)")
        await debugger.watch_add('cfg.get("pass" + "word")')
        await debugger.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-step')}",
                                      condition="Integer.parseInt(u.password) > 0")
        await debugger.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-step')}",
                                      log="pw={Integer.parseInt(u.password)} all={String.valueOf(u)}")
        await debugger.breakpoint_set(f"fixtures.Secrets:{line_of('secrets-return')}", log="ret {u.password.trim()}")
        stepped = await debugger.step("over", timeout=20)
        _no_secret(render.wait_result(stepped), "condition stop")
        assert stepped.stop is not None and "<redacted>" in (stepped.stop.message or ""), stepped.stop
        _no_secret(render.render(await debugger.watches()), "watches")
        # Stepping over passwordOf(u): the step reports its return value; the logpoint in it calls trim().
        stepped = await debugger.step("over", timeout=20)
        _no_secret(render.wait_result(stepped), "step over passwordOf")
        _no_secret(repr(stepped.to_dict()), "step over passwordOf (structured)")
        _no_secret(render.render(await debugger.watches()), "watch history")
        # A method exit of passwordOf: `returning ...` and $return.
        await debugger.breakpoint_remove("all")
        await debugger.method_break("fixtures.Secrets.passwordOf", on="exit")
        exited = await debugger.resume(timeout=20)
        assert exited.stopped, exited
        _no_secret(render.wait_result(exited), "method exit")
        assert "passwordOf" in render.wait_result(exited)  # a method's name is not a secret
        _no_secret(await _answer(debugger, "$return"), "$return")
        _no_secret(await _answer(debugger, "$return.trim()"), "$return.trim()")
        # Everything above also went into the event history.
        records = await debugger.events(limit=1000)
        _no_secret(render.events(records, limit=1000), "events")
        logged = [r.text for r in records if r.kind == "log"]
        assert any("For input string" in t and "<redacted>" in t for t in logged), logged  # the logpoint ran
        assert any(t.startswith("ret <redacted>") for t in logged), logged
        _no_secret(repr([r.to_dict() for r in records]), "events (structured)")
        _no_secret(repr([r.to_dict() for r in debugger.history.since(0)]), "history read directly")
    finally:
        await debugger.close()
