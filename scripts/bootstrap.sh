#!/usr/bin/env bash
# Idempotent setup: Python 3.11+ venv with tracepilot[dev], and a JDK 17+ (java + javac).
# Quiet on success. Installs the JDK only as root with apt-get and CI=true or TRACEPILOT_INSTALL_JDK=1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'bootstrap: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# --- Python ---------------------------------------------------------------------------------------
find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3 python; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}

if [ ! -x .venv/bin/python ]; then
    python_bin="$(find_python)" || die "Python 3.11+ not found. Install it (e.g. 'apt-get install python3.11 python3.11-venv') or set PYTHON=/path/to/python3.11."
    say "creating .venv with $python_bin"
    "$python_bin" -m venv .venv || die "could not create .venv (on Debian/Ubuntu: apt-get install python3-venv)"
fi
.venv/bin/python -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
    || die ".venv uses Python < 3.11; remove .venv and rerun with Python 3.11+ available."

stamp=.venv/.tracepilot-stamp
want="$(cat pyproject.toml | { sha256sum 2>/dev/null || shasum -a 256; } | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -x .venv/bin/tracepilot ]; then
    say "installing tracepilot[dev] into .venv"
    log="$(mktemp)"
    if ! { .venv/bin/python -m pip install --disable-pip-version-check -q --upgrade pip \
            && .venv/bin/python -m pip install --disable-pip-version-check -q -e '.[dev]'; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        die "pip install -e '.[dev]' failed (output above)"
    fi
    rm -f "$log"
    echo "$want" >"$stamp"
fi

# --- JDK ------------------------------------------------------------------------------------------
java_bin() { if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/$1" ]; then echo "$JAVA_HOME/bin/$1"; else command -v "$1" || true; fi; }

jdk_major() {  # prints the major version of `javac -version` (e.g. 17), or nothing
    local out
    out="$("$1" -version 2>&1 | head -n1)" || return 0
    echo "$out" | sed -E 's/^[a-z]+ "?([0-9]+).*/\1/'
}

jdk_ok() {
    local java javac major
    java="$(java_bin java)"; javac="$(java_bin javac)"
    [ -n "$java" ] && [ -n "$javac" ] || return 1
    major="$(jdk_major "$javac")"
    [ -n "$major" ] && [ "$major" -ge 17 ] 2>/dev/null
}

if ! jdk_ok; then
    ci="$(echo "${CI:-}" | tr '[:upper:]' '[:lower:]')"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
            && { [ "$ci" = true ] || [ "$ci" = 1 ] || [ "${TRACEPILOT_INSTALL_JDK:-}" = 1 ]; }; then
        say "installing openjdk-17-jdk-headless"
        export DEBIAN_FRONTEND=noninteractive
        log="$(mktemp)"
        if ! { apt-get update && apt-get install -y --no-install-recommends openjdk-17-jdk-headless; } >"$log" 2>&1; then
            cat "$log" >&2; rm -f "$log"
            die "apt-get install openjdk-17-jdk-headless failed (output above)"
        fi
        rm -f "$log"
        hash -r
        jdk_ok || die "installed openjdk-17-jdk-headless but java/javac 17+ still not found on PATH"
    else
        java="$(java_bin java)"; javac="$(java_bin javac)"
        missing=""
        [ -n "$java" ] || missing="java"
        [ -n "$javac" ] || missing="${missing:+$missing and }javac"
        if [ -n "$missing" ]; then
            what="$missing not found"
        else
            what="javac is version $(jdk_major "$javac"), need 17+"
        fi
        die "JDK 17+ required: $what (tests compile Java fixtures with javac).
  Debian/Ubuntu: sudo apt-get install openjdk-17-jdk-headless
  macOS:         brew install openjdk@17
  or set JAVA_HOME to a JDK 17+; or rerun as root with TRACEPILOT_INSTALL_JDK=1 to install it via apt-get."
    fi
fi

# tmux: the TUI's terminal walk-through test (tests/tui/test_tmux_demo.py) drives the demo in it; it skips
# without tmux. CI installs it (as root, with apt-get); elsewhere it stays optional.
if ! command -v tmux >/dev/null 2>&1; then
    ci="$(echo "${CI:-}" | tr '[:upper:]' '[:lower:]')"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && { [ "$ci" = true ] || [ "$ci" = 1 ]; }; then
        say "installing tmux"
        log="$(mktemp)"
        if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux \
                || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tmux; }; } \
                >"$log" 2>&1; then
            cat "$log" >&2
            say "apt-get install tmux failed: the terminal walk-through test will be skipped"
        fi
        rm -f "$log"
    fi
fi
