"""core/secrets.py without a JVM: the output rules of --redact on model objects, texts, errors and log lines
(the JVM-backed tests of the same rules: test_field_findings_redact.py, reliability/test_security.py)."""

from __future__ import annotations

import logging

from tracepilot.core.errors import EvaluationError
from tracepilot.core.model import Actor, CutList, EventRecord, Inspection, MapEntry, ValueView, Variable
from tracepilot.core.secrets import (
    REDACTED,
    KnownSecrets,
    RedactingFormatter,
    is_secret_name,
    redact_error,
    redact_outgoing,
    redact_text,
)


def string(text: str) -> ValueView:
    return ValueView("java.lang.String", f'"{text}"', "string")


def test_a_learned_secret_is_hidden_wherever_it_occurs_also_cut_short_or_escaped():
    book = KnownSecrets(log_lines=False)
    book.learn_text('hunter2-"PW"-0123456789')
    assert book.scrub('alice:hunter2-"PW"-0123456789!') == f"alice:{REDACTED}!"
    assert book.scrub('"hunter2-\\"PW\\"-0123…" (23 chars)') == f'"{REDACTED}…" (23 chars)'
    assert book.scrub("For input string: \"hunter2-\"PW\"-0123456789\"") == f'For input string: "{REDACTED}"'
    book.learn_text("eu")  # too short to look for in text: hidden by name only
    assert book.scrub("region eu") == "region eu"


def test_values_under_secret_names_are_redacted_and_learned():
    book = KnownSecrets(log_lines=False)
    answer = CutList([Variable("dbPassword", string("pw-LOCAL-1")), Variable("user", string("alice")),
                      Variable("note", string("uses pw-LOCAL-1"))], total=7)
    out = redact_outgoing(answer, book)
    assert out.total == 7 and out[0].value.text == REDACTED and out[1].value.text == '"alice"'
    assert out[2].value.text == f'"uses {REDACTED}"'  # learned from the first, hidden in the third
    assert answer[0].value.text == '"pw-LOCAL-1"'  # the original is left alone
    entry = redact_outgoing(MapEntry(string("db.password"), string("props-SECRET")), book)
    assert entry.value.text == REDACTED and entry.key.text == '"db.password"'
    summary = redact_outgoing(ValueView("fixtures.User", 'User{name="alice", password="hunter2-PW"}', "object"), book)
    assert summary.text == f'User{{name="alice", password={REDACTED}}}'
    record = EventRecord(1, 0.0, "log", Actor.TARGET, "got hunter2-PW and props-SECRET", {"value": "hunter2-PW"})
    assert "hunter2" not in repr(redact_outgoing(record, book).to_dict())
    assert "props-SECRET" not in repr(redact_outgoing(record, book).to_dict())


def test_an_answer_asked_for_by_a_secret_name_is_redacted_whole():
    book = KnownSecrets(log_lines=False)
    view = redact_outgoing(string("tok-123456"), book, name="s.apiToken")
    assert view.text == REDACTED and "tok-123456" in book.texts
    page = redact_outgoing(Inspection("s.secret", string("abcdefgh"), string="abcdefgh", total=8), book,
                           name="s.secret")
    assert page.value.text == REDACTED and page.string is None
    assert redact_outgoing(string("alice"), book, name="u.name").text == '"alice"'


def test_errors_and_log_lines_are_redacted():
    book = KnownSecrets()  # a session's book: the log formatter knows it
    book.learn_text("hunter2-PW")
    error = redact_error(EvaluationError('threw java.lang.NumberFormatException: For input string: "hunter2-PW"'),
                         book)
    assert "hunter2" not in str(error) and REDACTED in str(error)
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "evaluate failed: %s", ("hunter2-PW",), None)
    assert "hunter2" not in RedactingFormatter("%(message)s").format(record)


def test_secret_names():
    for name in ("password", "dbPassword", "apiToken", "secretKey", "private_key", "credentials", "pwd"):
        assert is_secret_name(name), name
    for name in ("key", "user", "keyboard", "region"):
        assert not is_secret_name(name), name


def test_structured_answers_as_a_share_client_receives_them():
    book = KnownSecrets(log_lines=False)
    answer = {"variables": [{"name": "dbPassword", "value": {"type": "java.lang.String", "text": '"pw-LOCAL-1"',
                                                             "kind": "string", "handle": "@3"}, "kind": "local"},
                            {"name": "note", "value": {"text": '"uses pw-LOCAL-1"', "kind": "string"}}],
              "entries": [{"key": {"text": '"apiToken"', "kind": "string"}, "value": {"text": '"tok-999999"'}}],
              "token": "tok-888888"}
    out = redact_outgoing(answer, book)
    assert "pw-LOCAL" not in repr(out) and "tok-9" not in repr(out) and "tok-8" not in repr(out), out
    assert out["variables"][0]["value"]["handle"] is None  # no handle to open the secret by


def test_conditions_and_templates_are_not_taken_for_values():
    book = KnownSecrets(log_lines=False)
    for text in ("apiToken==null", "password != null && token==x", "log password={u.password}", "key=region"):
        assert redact_text(text, book) == text, text
    assert redact_text("db.password=props-SECRET, url=jdbc", book) == f"db.password={REDACTED}, url=jdbc"
