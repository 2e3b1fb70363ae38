"""The test infrastructure itself: compiling fixtures, markers, starting JVMs, the JDWP handshake."""

from __future__ import annotations

import socket

import pytest

from support.jvm import FixtureError, demo_line_of, line_of, source_path_of

HANDSHAKE = b"JDWP-Handshake"


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _handshake(host: str, port: int) -> bytes:
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(HANDSHAKE)
        return _recv_exactly(sock, len(HANDSHAKE))


def test_fixtures_compile(java_classes):
    for name in (
        "Playground",
        "Quick",
        "LambdasAndInner",
        "LaterLoaded",
        "LaterLoadedTarget",
        "HotLoop",
        "Deadlocks",
        "Values",
        "Evaluator",
        "Exceptions",
        "Serving",
    ):
        assert (java_classes / "fixtures" / f"{name}.class").is_file(), name


def test_markers_resolve():
    path = source_path_of("fixtures.Playground")
    assert path.name == "Playground.java"
    line = line_of("loop-body")
    assert "// @bp:loop-body" in path.read_text().splitlines()[line - 1]
    assert line_of("@bp:values") > 0
    assert source_path_of("Evaluator$Inner").name == "Evaluator.java"
    with pytest.raises(FixtureError):
        line_of("no-such-marker")


def test_demo_markers_resolve():
    assert demo_line_of("npe") > demo_line_of("discount") > 0


@pytest.mark.timeout(60)
def test_suspended_jvm_handshake(jvm_factory, jdk):
    target = jvm_factory("Quick", jdk=jdk, suspend=True)
    assert target.address == f"127.0.0.1:{target.port}"
    assert _handshake(target.host, target.port) == HANDSHAKE
    # Suspended at start and no debugger resumed it: main must not have printed anything.
    assert "hello quick" not in target.stdout_text()
    target.kill()
    assert target.returncode is not None


@pytest.mark.timeout(60)
def test_running_jvm_output_and_fixed_port(jvm_factory, free_port, default_jdk):
    port = free_port()
    target = jvm_factory("Playground", "1000", "nosleep", jdk=default_jdk, suspend=False, port=port)
    assert target.port == port
    target.wait_for_output("iteration 3 ", timeout=20)
    target.kill()
    # Restarted on the same port: the "target restarted" scenario.
    again = jvm_factory("Quick", jdk=default_jdk, suspend=True, port=port)
    assert again.port == port
    assert _handshake(again.host, again.port) == HANDSHAKE


def test_early_exit_reports_output(jvm_factory, default_jdk):
    target = jvm_factory("Quick", jdk=default_jdk, suspend=False)
    target.wait_for_output("hello quick 5", timeout=20)
    assert target.wait(20) == 0
    with pytest.raises(FixtureError, match="closed before"):
        target.wait_for_output("never printed", timeout=5)
