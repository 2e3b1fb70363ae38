"""The in-JVM trace probe: Java source, compiled with javac when a trace starts (no build step, no class file
in the wheel). One hub class per trace, in the traced classes' loader and package, that every traced method
calls at entry, at each return, and from a catch-all handler when an exception leaves it; and per traced
class a marker class carrying what a later session needs to restore it should this one be killed
(instrument/leftovers.py reads TARGET, ORIGINAL, STAMP from every probe class).

Each thread builds its own call tree (no lock on the hot path): nodes in flat arrays, a child found through
a per-node cache of the last child entered then the sibling list, times from System.nanoTime. A node stands
for one call path, so it is on a thread's stack at most once: its running call's start time lives in the
node. The debugger sets OFF, then reads the threads' arrays over JDWP.

Why the hot path looks as it does (measured, issue 32: a 2-instruction leaf called in a loop, JDK 17,
ns per call; untraced 0.37): a ThreadLocal lookup per call ~12; a state found by thread id 4.4 (the JIT
cannot hoist the state's loads when the lookup depends on the current thread); a static LAST state checked
against the current thread 0.5; any branch that may call System.nanoTime in the leaf's code 4-6 (a call
on any path stops the JIT keeping the state in registers through the loop), whence untimed tiny leaves;
the caller's node kept in a local and passed back at exit rather than reloaded from parent[].
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
    public static boolean OFF;  // not volatile: set at the end, with the program suspended; a read per call
    public static Object[] STATES = new Object[16];
    // The first calls with their values (recording.py): per method, record its next calls while REC[m]
    // (a plain field: the guard's load is hoisted out of loops; cleared once MAX_CALLS calls are in).
    // Each record: {method (Integer), thread, arguments (Object[]), returned value, "returned" | "threw"}.
    public static final boolean[] REC = new boolean[32768];
    public static int MAX_CALLS = %(max_calls)d;
    public static int MAX_RECORDS = %(max_records)d;  // in all: what the debugger reads at the end stays quick
    public static Object[] RECORDS = new Object[64];
    public static int RECORD_COUNT;
    private static final int[] RECORDED = new int[32768];
    private static final int[] OPEN = new int[32768];
    static {
        java.util.Arrays.fill(REC, true);
    }
    public static int COUNT;
    private static final ThreadLocal<State> MINE = new ThreadLocal<>();
    // A thread's state by its id (when LAST is another's): read-only, no ThreadLocal lookup.
    // Made at the first call, not in the class initializer: the hub is defined (and may be initialized)
    // before its nested State class.
    private static State[] BY_ID;

    public static final class State {
        public Thread thread;
        public int size = 1;  // node 0: the thread's root
        public int[] method = new int[64];
        public int[] parent = new int[64];
        int[] firstChild = new int[64];
        int[] nextSibling = new int[64];
        int[] hot = new int[64];  // per node: the child entered last from it (a loop calling one method)
        public long[] calls = new long[64];
        public long[] total = new long[64];
        public long[] thrown = new long[64];
        public long[] timed = new long[64];
        long[] next = new long[64];  // per node: the call count at which the next call is timed
        Object[] open = new Object[64];  // per node: the record of its call running now, if recorded
        Object[] recording;  // the record the arguments being handed over go to (null: not recorded)
        long[] started = new long[64];  // per node: nanoTime of its timed call running now, else 0
        int cur;  // the node of the innermost traced call running (a node is on the stack at most once)

        State() {
            method[0] = -1;
        }

        int child(int p, int m) {
            int c = firstChild[p];
            while (c != 0 && method[c] != m) c = nextSibling[c];
            if (c == 0) {
                if (size == method.length) grow();
                c = size;
                method[c] = m;
                parent[c] = p;
                nextSibling[c] = firstChild[p];
                firstChild[p] = c;
                size = c + 1;  // last: a reader never sees a half-made node
            }
            hot[p] = c;
            return c;
        }

        private void grow() {
            int n = method.length * 2;
            method = java.util.Arrays.copyOf(method, n);
            parent = java.util.Arrays.copyOf(parent, n);
            firstChild = java.util.Arrays.copyOf(firstChild, n);
            nextSibling = java.util.Arrays.copyOf(nextSibling, n);
            hot = java.util.Arrays.copyOf(hot, n);
            calls = java.util.Arrays.copyOf(calls, n);
            total = java.util.Arrays.copyOf(total, n);
            thrown = java.util.Arrays.copyOf(thrown, n);
            timed = java.util.Arrays.copyOf(timed, n);
            next = java.util.Arrays.copyOf(next, n);
            started = java.util.Arrays.copyOf(started, n);
            open = java.util.Arrays.copyOf(open, n);
        }

        // Sampled timing: a node's first FIRST calls are timed; past them a call averaging under 1 us is
        // timed once in SAMPLE calls (two nanoTime calls cost more than such a method), a slower one every call.
        void stop(int c, long t) {
            long spent = System.nanoTime() - t;
            started[c] = 0L;
            total[c] += spent;
            long n = ++timed[c];
            long k = calls[c];
            next[c] = k < %(first)d || total[c] >= n * 1000L ? k + 1 : k + %(sample)d;
        }

        // Leaves the calls above node m's (and m's own when `all`): an exception left them, or a constructor
        // (no handler) threw. Returns false when m is not on this thread's traced stack.
        boolean unwind(int m, boolean all) {
            int c = cur;
            while (c != 0 && method[c] != m) c = parent[c];
            if (c == 0) return false;
            int stop = all ? parent[c] : c;
            for (int x = cur; x != stop; x = parent[x]) {
                if (started[x] != 0L) stop(x, started[x]);
                if (open[x] != null) close(this, x, null, "threw");
                if (all || x != c) thrown[x]++;
            }
            cur = stop;
            return true;
        }
    }

    // The first traced thread's state (again the next new thread's once that one has ended): its check is
    // one load and one compare, and it stays the same object through a loop, so the JIT hoists its fields'
    // loads. Another thread finds its state by its id (no call, no write: no cache-line ping-pong); a call
    // only at a thread's first traced call, or when its id's slot is another's.
    private static State LAST;

    private static State state() {
        State s = LAST;
        Thread t = Thread.currentThread();
        if (s != null && s.thread == t) return s;
        State[] by = BY_ID;
        if (by != null) {
            s = by[(int) t.getId() & 1023];
            if (s != null && s.thread == t) return s;
        }
        return mine(t);
    }

    private static State mine(Thread t) {
        State s = MINE.get();
        if (s == null) {
            s = new State();
            s.thread = t;
            synchronized (%(name)s.class) {
                if (COUNT == STATES.length) STATES = java.util.Arrays.copyOf(STATES, COUNT * 2);
                STATES[COUNT++] = s;
                if (BY_ID == null) BY_ID = new State[1024];
                int at = (int) t.getId() & 1023;
                State there = BY_ID[at];
                if (there == null || !there.thread.isAlive()) BY_ID[at] = s;
                if (LAST == null || !LAST.thread.isAlive()) LAST = s;
            }
            MINE.set(s);
        }
        return s;
    }

    // Returns the caller's node (-1: not traced), which the method keeps in a local and gives back to
    // exit/thrown: the current call is restored from a register, not from a chain of loads.
    public static int enter(int m) {
        if (OFF) return -1;
        State s = state();
        int p = s.cur;
        int c = s.hot[p];
        if (s.method[c] != m) c = s.child(p, m);
        s.cur = c;
        if (++s.calls[c] >= s.next[c]) s.started[c] = System.nanoTime();
        return p;
    }

    public static void exit(int p, int m) {
        if (p < 0) return;
        State s = state();
        int c = s.cur;
        if (s.method[c] != m) {
            // frames above it: left by an exception without a handler (constructors)
            if (!s.unwind(m, false)) return;
            c = s.cur;
        }
        long t = s.started[c];
        if (t != 0L) s.stop(c, t);
        s.cur = p;
    }

    // The same for a tiny leaf (inject.is_tiny_leaf): counted, never timed, no branch that calls nanoTime.
    public static int count(int m) {
        if (OFF) return -1;
        State s = state();
        int p = s.cur;
        int c = s.hot[p];
        if (s.method[c] != m) c = s.child(p, m);
        s.cur = c;
        s.calls[c]++;
        return p;
    }

    public static void uncount(int p, int m) {
        if (p < 0) return;
        State s = state();
        if (s.method[s.cur] != m && !s.unwind(m, false)) return;
        s.cur = p;
    }

    // -- the first calls' values (only while REC[m]: never on the hot path once recorded) --------------

    public static void begin(int m, int args, int closes) {
        State s = state();
        s.recording = null;
        if (OFF || s.method[s.cur] != m) return;
        Object[] r;
        synchronized (%(name)s.class) {
            if (RECORDED[m] >= MAX_CALLS || RECORD_COUNT >= MAX_RECORDS) {
                if (OPEN[m] == 0 || closes == 0 || RECORD_COUNT >= MAX_RECORDS) REC[m] = false;
                return;
            }
            RECORDED[m]++;
            OPEN[m]++;
            r = new Object[] {Integer.valueOf(m), s.thread, new Object[args], null, null};
            if (RECORD_COUNT == RECORDS.length) RECORDS = java.util.Arrays.copyOf(RECORDS, RECORD_COUNT * 2);
            RECORDS[RECORD_COUNT++] = r;
        }
        s.open[s.cur] = r;
        s.recording = r;
    }

    private static void arg(Object v, int k) {
        Object[] r = state().recording;
        if (r != null) ((Object[]) r[2])[k] = v;
    }

    public static void argZ(boolean v, int k) { arg(Boolean.valueOf(v), k); }
    public static void argB(byte v, int k) { arg(Byte.valueOf(v), k); }
    public static void argC(char v, int k) { arg(Character.valueOf(v), k); }
    public static void argS(short v, int k) { arg(Short.valueOf(v), k); }
    public static void argI(int v, int k) { arg(Integer.valueOf(v), k); }
    public static void argJ(long v, int k) { arg(Long.valueOf(v), k); }
    public static void argF(float v, int k) { arg(Float.valueOf(v), k); }
    public static void argD(double v, int k) { arg(Double.valueOf(v), k); }
    public static void argA(Object v, int k) { arg(v, k); }

    private static void ret(Object v, int m) {
        State s = state();
        int c = s.cur;
        if (s.open[c] != null && s.method[c] == m) close(s, c, v, "returned");
    }

    static void close(State s, int c, Object v, String how) {
        Object[] r = (Object[]) s.open[c];
        s.open[c] = null;
        r[3] = v;
        r[4] = how;
        int m = s.method[c];
        synchronized (%(name)s.class) {
            if (--OPEN[m] == 0 && RECORDED[m] >= MAX_CALLS) REC[m] = false;
        }
    }

    public static void retV(int m) { ret(null, m); }
    public static void retZ(boolean v, int m) { ret(Boolean.valueOf(v), m); }
    public static void retB(byte v, int m) { ret(Byte.valueOf(v), m); }
    public static void retC(char v, int m) { ret(Character.valueOf(v), m); }
    public static void retS(short v, int m) { ret(Short.valueOf(v), m); }
    public static void retI(int v, int m) { ret(Integer.valueOf(v), m); }
    public static void retJ(long v, int m) { ret(Long.valueOf(v), m); }
    public static void retF(float v, int m) { ret(Float.valueOf(v), m); }
    public static void retD(double v, int m) { ret(Double.valueOf(v), m); }
    public static void retA(Object v, int m) { ret(v, m); }

    public static void thrown(int p, int m) {
        if (p >= 0) state().unwind(m, true);
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


FIRST_TIMED = 256  # a node's first calls, all timed
SAMPLE = 16  # past them, a call under 1 us on average is timed once in this many (counted every time)


RECORDED_CALLS = 8  # calls per method recorded with their arguments and return value (first ones)
RECORDS_IN_ALL = 256  # and in all (read over JDWP at the end of the trace)

# The numbers are written into the source (the only placeholders left are the package and the class name,
# which probe_cache.py fills; its key hashes this text, numbers included).
HUB_SOURCE = (HUB_SOURCE.replace("%(first)d", str(FIRST_TIMED)).replace("%(sample)d", str(SAMPLE))
              .replace("%(max_calls)d", str(RECORDED_CALLS)).replace("%(max_records)d", str(RECORDS_IN_ALL)))


class NoJavac(Exception):
    """javac is not there to build the probe: the round trip traces."""


def javac(java_home: str | None) -> str | None:
    if java_home:
        for candidate in (Path(java_home) / "bin" / "javac", Path(java_home).parent / "bin" / "javac"):
            if candidate.is_file():
                return str(candidate)
    return shutil.which("javac")


def compile_probes(package: str, hub: str, markers: list[str], java_home: str | None,
                   max_calls: int = RECORDED_CALLS) -> dict[str, bytes]:
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
            text = template % {"package": dotted, "name": name, "first": FIRST_TIMED, "sample": SAMPLE,
                               "max_calls": max_calls, "max_records": RECORDS_IN_ALL}
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
