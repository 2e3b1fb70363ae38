"""microsoft/java-debug's launch.json / attach arguments, as keyword arguments of `Debugger.launch`/`attach`.

Existing VS Code configurations work unchanged: launch takes mainClass, classPaths, modulePaths, args
(a string or an array), vmArgs (likewise), cwd, env, sourcePaths, stopOnEntry; mainClass may also be a
single .java file (compiled with javac -g) or a .jar (run with -jar; `jar` is accepted too). Attach takes
hostName, port, timeout (milliseconds, as in java-debug) and sourcePaths.
"""

from __future__ import annotations

import difflib
import os
import shlex
from typing import Any

from ..core.errors import InvalidArgument

# The keys this adapter reads, per request ("token": the TCP adapter's, auth.py).
LAUNCH_KEYS = frozenset({"mainClass", "jar", "classPaths", "modulePaths", "args", "vmArgs", "cwd", "env",
                         "sourcePaths", "stopOnEntry", "javaExec", "token"})
ATTACH_KEYS = frozenset({"hostName", "port", "timeout", "sourcePaths", "token"})
# Keys editors and microsoft/java-debug configurations carry that this adapter does not read: never refused.
FOREIGN_KEYS = frozenset({
    "type", "request", "name", "__sessionId", "__configurationTarget", "__restart", "noDebug", "debugServer",
    "preLaunchTask", "postDebugTask", "internalConsoleOptions", "presentation", "console", "envFile",
    "projectName", "encoding", "shortenCommandLine", "stepFilters", "launcherScript", "processId",
    "modulePaths", "timeout", "hostName", "port", "classPaths", "args", "vmArgs", "cwd", "env", "mainClass",
    "join", "followOnly", "readOnly", "redact",  # editors/vscode reads these itself
})
NEAR = 0.8  # how alike an unknown key and one of ours must be to count as a misspelling of ours


def check_arguments(arguments: dict[str, Any], request: str) -> None:
    """Refuse a key that is clearly one of ours misspelt (`classPath`, `vmArg`, `sourcepaths`): it would be
    ignored and the program run without it. Editors add keys of their own (type, request, name,
    __sessionId, ...) and java-debug configurations carry keys this adapter does not read: any key that is
    not close to one of ours is left alone."""
    ours = LAUNCH_KEYS if request == "launch" else ATTACH_KEYS
    for key in arguments:
        if key in ours or key in FOREIGN_KEYS or not isinstance(key, str):
            continue
        near = difflib.get_close_matches(key, ours, n=1, cutoff=NEAR) or [
            k for k in ours if k.lower() == key.lower()]
        if near:
            raise InvalidArgument(f'"{key}" is not an argument of {request}: did you mean "{near[0]}"?',
                                  f"fix the {request} configuration ({request} reads {', '.join(sorted(ours))})")


def _words(value: Any, name: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return shlex.split(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InvalidArgument(f"`{name}` must be a string or an array of strings", f"got {value!r}")


def _paths(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [p for p in value.split(os.pathsep) if p]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        # java-debug's "$Auto" / "$Runtime" / "!excluded" entries name its own classpath resolution: skip them.
        return [p for p in value if p and not p.startswith(("$", "!"))]
    raise InvalidArgument(f"`{name}` must be an array of paths", f"got {value!r}")


def launch_kwargs(arguments: dict[str, Any]) -> dict[str, Any]:
    main = arguments.get("mainClass")
    jar = arguments.get("jar")
    source = None
    if isinstance(main, str) and main.endswith(".java"):
        source, main = main, None
    elif isinstance(main, str) and main.endswith(".jar"):
        jar, main = main, None
    if not (main or jar or source):
        raise InvalidArgument("the launch configuration names nothing to run",
                              'set "mainClass" (a class name, a .java file or a .jar) and "classPaths"')
    jvm_args = _words(arguments.get("vmArgs"), "vmArgs")
    modules = _paths(arguments.get("modulePaths"), "modulePaths")
    if modules:
        jvm_args = ["--module-path", os.pathsep.join(modules), *jvm_args]
    if main and "/" in main and modules:  # "module/com.acme.Main": run it from the module path
        jvm_args += ["-m", main]
        main = None
    env = arguments.get("env") or None
    if env is not None and not (isinstance(env, dict) and all(isinstance(v, str) for v in env.values())):
        raise InvalidArgument("`env` must be an object of strings", f"got {env!r}")
    cwd = arguments.get("cwd") or None
    if cwd is not None and not os.path.isdir(cwd):
        raise InvalidArgument(f"cwd {cwd} is not a directory", "fix `cwd` in the launch configuration")
    classpath = _paths(arguments.get("classPaths"), "classPaths")
    return {
        "main": main, "classpath": classpath or None, "jar": jar, "source": source,
        "args": _words(arguments.get("args"), "args"), "jvm_args": jvm_args, "cwd": cwd, "env": env,
        "sourcepath": _paths(arguments.get("sourcePaths"), "sourcePaths"), "suspend": True,
        **({"java": arguments["javaExec"]} if arguments.get("javaExec") else {}),
    }


def attach_kwargs(arguments: dict[str, Any]) -> dict[str, Any]:
    host = arguments.get("hostName") or "localhost"
    port = arguments.get("port")
    if not isinstance(port, int) and not (isinstance(port, str) and port.isdigit()):
        raise InvalidArgument("the attach configuration has no port", 'set "port" to the JVM\'s JDWP port')
    timeout_ms = arguments.get("timeout", 30000)
    return {"address": f"{host}:{int(port)}", "timeout": max(0.1, float(timeout_ms) / 1000.0)}
