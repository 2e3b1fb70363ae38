"""The `tracepilot` command line: dispatches to the TUI, the REPL, the MCP server or the share tools.

Front ends are imported lazily so `tracepilot --mcp` answers `initialize` without loading Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from .version import package_version

USAGE = """\
tracepilot attach HOST:PORT [--sourcepath P ...] [--wait SECONDS]   TUI on a JVM that listens for a debugger
tracepilot launch [--sourcepath P ...] [--break LOCATION ...] -- JAVA-ARGS...   TUI on a JVM it starts
tracepilot launch Foo.java                 compile with javac -g and run it under the TUI
tracepilot demo                            the bundled sample program under the TUI
tracepilot repl HOST:PORT [-c "cmd; cmd"]  line interface (also reads commands from stdin)
tracepilot --mcp [--read-only] [--no-instrument] [--join SESSION]   MCP server on stdio
tracepilot dap [--port N] [--join [SESSION] [--follow-only]]   Debug Adapter Protocol server (stdio) for editors
tracepilot jdwp [--join [SESSION]] [--port N]   JDWP for IntelliJ, Eclipse, jdb on a live session
                                           (or --jdwp-port N on attach, launch, repl, --mcp)
tracepilot sessions                        live sessions on this machine
tracepilot watch [SESSION] [--follow-only] TUI on a live session another front end drives
                                           (SESSION tcp://127.0.0.1:PORT --token T: one shared with --share-tcp)
"""


def _subcommand(sub: Any, name: str, summary: str, description: str = "", epilog: str = "") -> argparse.ArgumentParser:
    """A subcommand whose --help is its own: its usage line, what it does, its options, examples."""
    return sub.add_parser(name, help=summary, prog=f"tracepilot {name}", description=description or summary,
                          epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)


def _person_facing(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-stop-on-uncaught", action="store_true",
                        help="let an uncaught exception end the program instead of stopping where it is thrown "
                             "(the default stop is breakpoint 1, `exception * uncaught only`)")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sourcepath", action="append", default=[], metavar="P", help="where .java sources live (repeatable)")
    parser.add_argument("--read-only", action="store_true", help="refuse every action with side effects")
    parser.add_argument("--redact", action="store_true", help="hide values of fields that look secret")
    parser.add_argument("--no-instrument", dest="no_instrument_here", action="store_true", help=NO_INSTRUMENT_HELP)
    parser.add_argument("--jdwp-port", dest="jdwp_port_here", type=int, default=None, metavar="N", help=JDWP_PORT_HELP)


JDWP_PORT_HELP = ("also serve JDWP on 127.0.0.1:N so IntelliJ, Eclipse or jdb join this session (0 picks a port, "
                  "printed on stderr)")
NO_INSTRUMENT_HELP = ("evaluate conditions and logpoints over JDWP at every hit, never by code compiled into the "
                      "target (the in-JVM mode redefines the breakpoint's class while the breakpoint is set)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tracepilot", description="A Java debugger for people and agents.",
                                     usage=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"tracepilot {package_version()}")
    parser.add_argument("--mcp", action="store_true", help="run the MCP server on stdio")
    parser.add_argument("--join", metavar="SESSION", nargs="?", const="", default=None,
                        help="with --mcp: drive a live session instead of opening a JDWP connection")
    parser.add_argument("--read-only", action="store_true", help="refuse every action with side effects")
    parser.add_argument("--redact", action="store_true", help="hide values of fields that look secret")
    parser.add_argument("--log-file", default=None, help="MCP server log file")
    parser.add_argument("--no-instrument", action="store_true", help=NO_INSTRUMENT_HELP)
    parser.add_argument("--share-tcp", type=int, default=None, metavar="PORT",
                        help="also share the session on 127.0.0.1:PORT (a token is printed; 0 picks a port)")
    parser.add_argument("--jdwp-port", type=int, default=None, metavar="N", help=JDWP_PORT_HELP)
    sub = parser.add_subparsers(dest="command")

    attach = _subcommand(sub, "attach", "TUI on a JVM that listens for a debugger",
                         "The terminal UI on a running JVM started with a debug agent, e.g.\n"
                         "  java -agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=*:5005 -cp app Main",
                         "example:\n  tracepilot attach localhost:5005 --sourcepath src/main/java")
    attach.add_argument("address", help="HOST:PORT of the JVM's debug agent")
    attach.add_argument("--wait", type=float, default=10.0, metavar="SECONDS", help="how long to wait for the JVM to listen")
    _person_facing(attach)
    _common(attach)

    launch = _subcommand(sub, "launch", "TUI on a JVM it starts",
                         "Start a Java program under the terminal UI (suspended, breakpoints set, then run). Given no\n"
                         "--break it stops at the first line of main, as jdb and pudb do (--no-stop-at-main runs it).\n"
                         "Everything after -- is what you would give `java`; a single Foo.java is compiled first.",
                         "examples:\n  tracepilot launch --break com.acme.Main:42 -- -cp build/classes com.acme.Main arg1\n"
                         "  tracepilot launch -- -jar app.jar\n  tracepilot launch Hello.java")
    launch.add_argument("--break", dest="breaks", action="append", default=[], metavar="LOCATION",
                        help="a breakpoint set before the program runs: Foo:42, Foo.java:42, com.acme.Foo.bar "
                             "(repeatable)")
    launch.add_argument("--no-stop-at-main", action="store_true",
                        help="given no --break, run the program instead of stopping at the first line of main")
    launch.add_argument("java_args", nargs=argparse.REMAINDER, help="-- JAVA-ARGS... or Foo.java")
    _person_facing(launch)
    _common(launch)

    demo = _subcommand(sub, "demo", "the bundled sample program under the TUI",
                       "A small shop program (ShopDemo.java) under the terminal UI, stopped at a breakpoint early in\n"
                       "its flow, with a NullPointerException ahead to find. Needs java and javac (JDK 17+).",
                       "example:\n  tracepilot demo --break ShopDemo.discount")
    demo.add_argument("--break", dest="breaks", action="append", default=[], metavar="LOCATION",
                      help="stop here instead of the default first breakpoint: ShopDemo:60, ShopDemo.discount "
                           "(repeatable)")
    _person_facing(demo)
    _common(demo)

    repl = _subcommand(sub, "repl", "jdb-style line interface",
                       "A jdb/gdb-style prompt (history, Tab completion); also runs -c commands or a script on stdin.",
                       'examples:\n  tracepilot repl localhost:5005\n  tracepilot repl localhost:5005 -c "stop at '
                       'Foo:12; cont; where"\n  tracepilot repl localhost:5005 < session.txt\n'
                       "`help` at the prompt lists every command.")
    repl.add_argument("address", nargs="?", default=None, help="HOST:PORT (omit to start unattached)")
    repl.add_argument("-c", dest="commands", default=None, help='commands to run, separated by ";"')
    repl.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                      help="how long to wait for the JVM to listen")
    _person_facing(repl)
    _common(repl)

    dap = sub.add_parser("dap", help="Debug Adapter Protocol server for editors (stdio, or --port)",
                         prog="tracepilot dap")
    dap.add_argument("--port", type=int, default=None, metavar="N", help="listen on 127.0.0.1:N instead of stdio "
                     "(0 picks a port, printed on stderr)")
    dap.add_argument("--join", dest="dap_join", metavar="SESSION", nargs="?", const="", default=None,
                     help="follow and drive a live shared session (the newest one without SESSION)")
    dap.add_argument("--follow-only", action="store_true", help="with --join: watch without taking part")
    dap.add_argument("--target", default=None, metavar="NAME",
                     help="with --join: debug one JVM (target) of a session holding several")
    dap.add_argument("--token", default=None, help="the token of a session shared with --share-tcp")
    _common(dap)

    jdwp = _subcommand(sub, "jdwp", "JDWP for IntelliJ, Eclipse and jdb on a live session",
                       "A JDWP port on 127.0.0.1 for one Java debugger (IntelliJ's Remote JVM Debug, Eclipse's Remote\n"
                       "Java Application, jdb -attach) on a live session another tracepilot process owns: its\n"
                       "breakpoints, stops and resumes are the session's, counted apart from the agent's.",
                       "example:\n  tracepilot jdwp --join --port 5006   then attach your IDE to localhost:5006")
    jdwp.add_argument("--join", dest="jdwp_join", metavar="SESSION", nargs="?", const="", default="",
                      help="the session (id, pid or target; the newest without SESSION; tcp://HOST:PORT with --token)")
    jdwp.add_argument("--port", type=int, default=0, metavar="N", help="listen on 127.0.0.1:N (0 picks a port, printed)")
    jdwp.add_argument("--token", default=None, help="the token of a session shared with --share-tcp")
    jdwp.add_argument("--name", default="IDE", help="the debugger's name in the session's history (default IDE)")
    jdwp.add_argument("--read-only", action="store_true", help="refuse the debugger every command with side effects")

    sub.add_parser("sessions", help="live sessions on this machine", prog="tracepilot sessions")

    watch = sub.add_parser("watch", help="TUI on a live session another front end drives", prog="tracepilot watch")
    watch.add_argument("session", nargs="?", default=None)
    watch.add_argument("--follow-only", action="store_true", help="watch without taking part")
    watch.add_argument("--token", default=None, help="the token of a session shared with --share-tcp "
                       "(SESSION is then tcp://HOST:PORT)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    if ns.share_tcp is not None:
        # Read by every session host when it publishes (share.host); TCP is never opened otherwise.
        os.environ["TRACEPILOT_SHARE_TCP"] = str(ns.share_tcp)
    if ns.no_instrument or getattr(ns, "no_instrument_here", False):
        os.environ["TRACEPILOT_NO_INSTRUMENT"] = "1"  # read by core/instrument when a session starts
    jdwp_port = ns.jdwp_port if getattr(ns, "jdwp_port_here", None) is None else ns.jdwp_port_here
    if jdwp_port is not None:
        os.environ["TRACEPILOT_JDWP_PORT"] = str(jdwp_port)  # read by the JDWP front end when the session publishes
    if ns.command == "jdwp":
        from .jdwpfront.join import run as run_jdwp

        return run_jdwp(ns) or 0
    if ns.command != "watch" and not (ns.mcp and ns.join is not None):
        from .jdwpfront.hosting import install  # noqa: PLC0415 - every session this process owns offers JDWP

        install()
    if ns.mcp:
        from .mcp.server import run as run_mcp

        return run_mcp(read_only=ns.read_only, redact=ns.redact, join=ns.join, log_file=ns.log_file) or 0
    if ns.command in ("attach", "launch", "demo", "watch"):
        from .tui.entry import run as run_tui

        return run_tui(ns) or 0
    if ns.command == "repl":
        from .repl.app import run as run_repl

        return run_repl(ns) or 0
    if ns.command == "dap":
        from .dap.server import run as run_dap

        ns.join = ns.dap_join
        return run_dap(ns) or 0
    if ns.command == "sessions":
        from .share.registry import print_sessions

        return print_sessions() or 0
    parser.print_usage(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
