"""Operations on the connection: attach, launch, detach, status, reset, diagnose, and the session
commands only a person at a prompt uses."""

from __future__ import annotations

from typing import Any

from .spec import Arguments, Effect, Param, Spec, person_only


def _attach(d: Any, a: Arguments) -> Any:
    name = getattr(a, "name", None)  # (several JVMs in one session: commands/targets.py)
    return d.attach(a.address, a.timeout, sourcepath=a.sourcepath or (), actor=a.actor, **({"name": name} if name else {}))


def _launch(d: Any, a: Arguments) -> Any:
    return d.launch(main=a.main, classpath=a.classpath, jar=a.jar, source=a.source, args=a.args or (),
                    jvm_args=a.jvm_args or (), cwd=a.cwd, env=a.env, sourcepath=a.sourcepath or (),
                    suspend=a.suspend, actor=a.actor,
                    **({"name": a.name} if getattr(a, "name", None) else {}))


RESET_HELP = "Clear breakpoints, watchers and the event history; keep the connection and marks."

SPECS = (
    Spec(
        "attach", "Attach to a running JVM that listens for a debugger. Then set breakpoints and resume.",
        Effect.CONTROL, tool="attach", method="attach", call=_attach, commands=("attach",),
        params=(
            Param("address", str, "localhost:5005", '"host:port" of a JVM started with '
                  '-agentlib:jdwp=transport=dt_socket,server=y,address=PORT'),
            Param("timeout", float, 10.0, "seconds to wait for the JVM to listen", ge=0, le=600),
            Param("sourcepath", list[str] | None, None, "directories holding the program's .java sources"),
        )),
    Spec(
        "launch", "Start a JVM under the debugger (main+classpath, jar, or one .java file). Its output is kept: "
        "see output.\n\nWith suspend=true (default) it stops at VM start: set breakpoints, then resume.",
        Effect.CHANGE, tool="launch", method="launch", call=_launch, commands=("launch",),
        params=(
            Param("main", str | None, None, "main class, e.g. com.acme.Main (with classpath)"),
            Param("classpath", list[str] | str | None, None, "class path entries, list or a path string"),
            Param("jar", str | None, None, "an executable jar to run (instead of main)"),
            Param("source", str | None, None, "a single .java file: compiled with javac -g, then run"),
            Param("args", list[str] | None, None, "program arguments"),
            Param("jvm_args", list[str] | None, None, 'JVM options, e.g. ["-Xmx256m"]'),
            Param("cwd", str | None, None, "working directory of the program"),
            Param("env", dict[str, str] | None, None, "extra environment variables"),
            Param("sourcepath", list[str] | None, None, "directories holding .java sources"),
            Param("suspend", bool, True, "stay suspended at VM start so breakpoints can be set first"),
        )),
    Spec(
        "detach", "Disconnect from the JVM (clean slate: breakpoints, watchers and history are dropped). With\n"
        "terminate, answers once the JVM has exited. Object handles (@12) start again at @1 in the next\n"
        "session; event numbers keep counting, so `events since=N` never skips a new session's events.",
        Effect.CONTROL, tool="detach", method="detach", commands=("detach",),
        call=lambda d, a: d.detach(a.terminate, actor=a.actor),
        params=(Param("terminate", bool, False, "also end the JVM (a launched one always ends)"),)),
    Spec(
        "status", "State (DISCONNECTED, RUNNING, STOPPED, EXITED), why and where it stopped, the target, counts.",
        tool="status", method="status", call=lambda d, a: d.status(), commands=("status",)),
    Spec("reset", RESET_HELP, Effect.CONTROL, tool="reset", method="reset", commands=("reset",),
         call=lambda d, a: d.reset(actor=a.actor)),
    Spec(
        "diagnose", "Server version and log file, the last connection attempt and its error, and local JVMs that\n"
        "run a JDWP agent with the ports they listen on. Use when attach fails or a port is unknown.",
        tool="diagnose", method="diagnose", call=lambda d, a: d.diagnose(), commands=("diagnose",)),
    person_only("restart", "relaunching with the same command line is a convenience of the prompt; an agent "
                "calls launch again with the arguments it chose", ("restart",)),
    person_only("version", "the agent reads tracepilot's version from diagnose and the VM's from status",
                ("version",)),
    person_only("sourcepath", "an agent gives the source path to attach or launch (sourcepath=...)", ("use",)),
    person_only("timeout", "the prompt's own wait; every MCP tool that waits takes a timeout argument",
                ("timeout",)),
    person_only("help", "help of the prompt; MCP lists its tools with their descriptions", ("help",)),
    person_only("exit", "leaves the prompt; an MCP session ends when its client closes it", ("exit",)),
)
