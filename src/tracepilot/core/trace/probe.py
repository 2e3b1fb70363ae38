"""The in-JVM trace probe: Java source, compiled with javac when a trace starts (no build step, no class file
in the wheel). One hub class per trace, in the traced classes' loader and package, that every traced method
calls at entry, at each return, and from a catch-all handler when an exception leaves it; and per traced
class a marker class carrying what a later session needs to restore it should this one be killed
(instrument/leftovers.py reads TARGET, ORIGINAL, STAMP from every probe class).

Each thread builds its own call tree (no lock on the hot path): nodes in flat arrays, a child found through
a one-entry cache then the sibling list, times from System.nanoTime. The debugger sets OFF, then reads the
threads' arrays over JDWP.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

HUB_SOURCE = """\
package %(package)s;

public final class %(name)s {
    public static String TARGET;
    public static byte[] ORIGINAL;
    public static long STAMP;
    public static volatile boolean OFF;
    public static Object[] STATES = new Object[16];
    public static int COUNT;
    private static final ThreadLocal<State> MINE = new ThreadLocal<>();
    private static State last;  // the last thread's state: a check of its owner spares the ThreadLocal

    public static final class State {
        public Thread thread;
        public int size = 1;  // node 0: the thread's root
        public int[] method = new int[64];
        public int[] parent = new int[64];
        public int[] firstChild = new int[64];
        public int[] nextSibling = new int[64];
        public long[] calls = new long[64];
        public long[] total = new long[64];
        public long[] thrown = new long[64];
        public long[] timed = new long[64];
        int[] stack = new int[64];
        long[] started = new long[64];
        int depth;
        int lastParent = -1, lastMethod = -1, lastNode;

        int child(int p, int m) {
            if (p == lastParent && m == lastMethod) return lastNode;
            int c = firstChild[p];
            while (c != 0 && method[c] != m) c = nextSibling[c];
            if (c == 0) {
                if (size == method.length) grow();
                c = size++;
                method[c] = m;
                parent[c] = p;
                nextSibling[c] = firstChild[p];
                firstChild[p] = c;
            }
            lastParent = p; lastMethod = m; lastNode = c;
            return c;
        }

        private void grow() {
            int n = method.length * 2;
            method = java.util.Arrays.copyOf(method, n);
            parent = java.util.Arrays.copyOf(parent, n);
            firstChild = java.util.Arrays.copyOf(firstChild, n);
            nextSibling = java.util.Arrays.copyOf(nextSibling, n);
            calls = java.util.Arrays.copyOf(calls, n);
            total = java.util.Arrays.copyOf(total, n);
            thrown = java.util.Arrays.copyOf(thrown, n);
            timed = java.util.Arrays.copyOf(timed, n);
        }
    }

    private static State state() {
        State s = last;
        if (s != null && s.thread == Thread.currentThread()) return s;
        s = MINE.get();
        if (s == null) {
            s = new State();
            s.thread = Thread.currentThread();
            synchronized (%(name)s.class) {
                if (COUNT == STATES.length) STATES = java.util.Arrays.copyOf(STATES, COUNT * 2);
                STATES[COUNT++] = s;
            }
            MINE.set(s);
        }
        last = s;
        return s;
    }

    public static void enter(int m) {
        if (OFF) return;
        State s = state();
        int top = s.depth == 0 ? 0 : s.stack[s.depth - 1];
        int node = s.child(top, m);
        s.calls[node]++;
        if (s.depth == s.stack.length) {
            s.stack = java.util.Arrays.copyOf(s.stack, s.depth * 2);
            s.started = java.util.Arrays.copyOf(s.started, s.depth * 2);
        }
        s.stack[s.depth] = node;
        long n = s.calls[node];
        // Sampled: past its first 256 calls, a method averaging under 1 us is timed once in 16 calls (two
        // nanoTime calls would cost more than it does); the others are counted, not timed.
        boolean sample = n <= 256 || (n & 15) == 0 || s.total[node] >= s.timed[node] * 1000;
        s.started[s.depth++] = sample ? System.nanoTime() : 0L;
    }

    public static void exit(int m) {
        leave(m, false);
    }

    public static void thrown(int m) {
        leave(m, true);
    }

    private static void leave(int m, boolean thrown) {
        if (OFF) return;
        State s = last;
        if (s == null || s.thread != Thread.currentThread()) s = MINE.get();
        if (s == null || s.depth == 0) return;
        int at = s.depth - 1;
        while (at >= 0 && s.method[s.stack[at]] != m) at--;
        if (at < 0) return;  // not entered while tracing
        long now = 0L;
        while (s.depth > at) {  // frames above it: left by an exception without a handler (constructors)
            s.depth--;
            int node = s.stack[s.depth];
            long started = s.started[s.depth];
            if (started != 0L) {
                if (now == 0L) now = System.nanoTime();
                s.total[node] += now - started;
                s.timed[node]++;
            }
            if (thrown || s.depth > at) s.thrown[node]++;
        }
    }
}
"""

MARKER_SOURCE = """\
package %(package)s;

public final class %(name)s {
    public static String TARGET;
    public static byte[] ORIGINAL;
    public static long STAMP;
}
"""


class NoJavac(Exception):
    """javac is not there to build the probe: the round trip traces."""


def javac(java_home: str | None) -> str | None:
    if java_home:
        for candidate in (Path(java_home) / "bin" / "javac", Path(java_home).parent / "bin" / "javac"):
            if candidate.is_file():
                return str(candidate)
    return shutil.which("javac")


def compile_probes(package: str, hub: str, markers: list[str], java_home: str | None) -> dict[str, bytes]:
    """Internal name -> class bytes of the hub and the markers (simple names `hub`, `markers`) in `package`
    (internal form, "" for the unnamed package)."""
    tool = javac(java_home)
    if tool is None:
        raise NoJavac("no javac found (next to the target's java, or on PATH) to build the trace probe")
    dotted = package.replace("/", ".")
    with tempfile.TemporaryDirectory(prefix="tracepilot-probe-") as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        src.mkdir()
        files = []
        for name, template in [(hub, HUB_SOURCE)] + [(m, MARKER_SOURCE) for m in markers]:
            text = template % {"package": dotted, "name": name}
            if not dotted:
                text = text.split("\n", 2)[2]
            path = src / f"{name}.java"
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
        done = subprocess.run([tool, "--release", "11", "-nowarn", "-d", str(out), *files],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise NoJavac(f"javac could not build the trace probe: {done.stderr.strip()[:300]}")
        prefix = f"{package}/" if package else ""
        return {f"{prefix}{p.relative_to(out).with_suffix('').as_posix().rpartition('/')[2]}": p.read_bytes()
                for p in out.rglob("*.class")}
