"""The probe: a generated class next to the user's class, and the call inserted at the breakpoint's line.

    static void check(captures...)    the inserted code calls this at the line; it evaluates the condition
    static void hit()                 called when the condition is true: the debugger's breakpoint is here
    static void error(Throwable)      called when evaluating threw: a breakpoint too (a condition error)
    static void handover(Object[])    logpoints: a batch of lines and their threads, for the debugger

A capture point's check calls take(...) instead of hit() (take_call.py): the capture is taken in the JVM and
hit() is called only when it must fall back to the debugger.

``check`` never throws into the program: its body is wrapped in a catch-all that calls ``error`` (under a hit
rule, a condition's throw is counted and decided by the rule first, as a true condition is). When the
debugger stops at ``hit`` it pops the probe's frames, so the thread stands at the user's line (frame 0 is
the user's method; the stop itself comes from a one-shot breakpoint there, pops.py) and the inserted call runs
again on resume; the debugger first makes the thread the probe's
``WAITER`` so that second call returns at once instead of evaluating the condition twice, and the call clears
it: after the stop, the probe reads what it read before. When WAITER is taken (threads stopped at one probe at
once), the debugger puts the thread in ``SKIP`` instead and raises ``ANY``, which stays raised (every later
call then scans SKIP; WAITER and ANY are the two fields a call reads before its condition). ``FORCE`` makes
every call go straight to ``hit`` without evaluating anything: with no request left on ``hit``, that makes
the probe inert, which is how a removed breakpoint's probe waits until its class can be restored without
redefining it under a running frame. A *pure* condition (``is_pure``: its captures and constants only, nothing
that can throw, call, allocate or load a class) goes before that gate instead, so a false one reads no field:
evaluating it twice changes nothing, a skipped call answers true again (PopFrames gives it the arguments of the
call that stopped) and so reaches its slot, and under FORCE it only decides whether the empty ``hit`` runs.

Logpoints format the line in the JVM and add it, with its thread, to a ring (BUF/THR; N counts the lines
added, ever, so hits are exact). A logging thread hands a batch over -- the lines as one String, and their
threads -- when FLUSH_LINES wait or 50 ms passed since the last batch, and the probe's shutdown hook does at
JVM exit: one suspension per batch instead of per line is what keeps a hot logpoint from slowing the
program by a round trip a hit. In between, the debugger reads the ring line by line over JDWP without
suspending anything (before a stop, a detach, an answer; and polling the tail of an idle logpoint) and
moves READ on; logring.py is that side, and says what each path guarantees.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import bytecode as bc
from .assemble import (
    ACC_PUBLIC,
    ACC_STATIC,
    ACC_SYNCHRONIZED,
    ACC_VOLATILE,
    Assembler,
    Label,
    StaticClassWriter,
    slot_size,
)
from .classfile import ConstantPool
from .emit import Emitter, capture_slots
from .hit_number import number_slot
from .shapes import STRING, Capture, Typed
from .take_call import emit_take

# Around each String value in a log line: the debugger escapes and cuts it as its own rendering does.
STRING_OPEN, STRING_CLOSE = "\u0001", "\u0002"
RING_LINES = 32768  # a power of two: a line's slot is N & (RING_LINES - 1)
FLUSH_LINES = RING_LINES // 2  # a batch is handed over when this many lines wait for one...
BATCH_NANOS = 50_000_000
FULL_TRIES = 64  # ...or when a line comes 50 ms after the last batch
SEPARATOR = "\u001e"  # in a batch: before each line of the same thread as the line before (ASCII RS)...
NEW_THREAD = "\u001f"  # ...and before a line of the next thread in the batch's Thread[] (ASCII US)
SKIP_SLOTS = 16  # to start with: skip.py grows it
THREAD = "java/lang/Thread"
OBJECTS = "[Ljava/lang/Object;"
BUILDER = "java/lang/StringBuilder"
AALOAD, AASTORE, LSUB, LALOAD, LASTORE, T_LONG = 0x32, 0x53, 0x65, 0x2F, 0x50, 11
# The instrumented class (internal name), its bytes before the probe calls went in, and when (ns).
LEFTOVER_FIELDS = (("TARGET", "Ljava/lang/String;"), ("ORIGINAL", "[B"), ("STAMP", "J"))


@dataclass
class Probe:
    class_name: str  # internal name
    data: bytes
    captures: list[Capture]

    @property
    def check_descriptor(self) -> str:
        return "(" + "".join(c.descriptor for c in self.captures) + ")V"


def build_probe(class_name: str, captures: list[Capture], condition: Typed | None,
                message: list[Typed | str] | None, hit_rule: tuple[str, int] | None = None,
                gate_first: bool = False, take: int | None = None) -> Probe:
    """A probe that calls hit() when `condition` holds (always when None), or logs `message` instead; with a
    hit rule, only the hits (condition true) it lets through: the n-th ("eq"), every n-th, from the n-th on.
    `gate_first`: read ANY before even a pure condition (the debugger replaces a probe while a thread waits
    in its SKIP, and that thread's call must find its slot whatever the new condition answers).
    `take`: a capture point's id: the capture is taken in the JVM (take_call.py), hit() only to fall back."""
    writer = StaticClassWriter(class_name, superclass=THREAD if message is not None else "java/lang/Object")
    pool = writer.pool
    writer.add_field("ANY", "Z", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)
    # The thread whose next call returns at once (it takes itself out, so nothing stays raised after it)...
    writer.add_field("WAITER", f"L{THREAD};", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)
    # ...and the others, while WAITER is taken; the debugger replaces it by a longer one when it is full.
    writer.add_field("SKIP", f"[L{THREAD};", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)
    writer.add_field("FORCE", "Z", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)
    writer.add_field("HITS", "I", ACC_PUBLIC | ACC_STATIC)  # condition-true hits, read by the debugger
    # Set by the debugger: what a later session needs to restore the class if this one dies (leftovers.py).
    for name, descriptor in LEFTOVER_FIELDS:
        writer.add_field(name, descriptor, ACC_PUBLIC | ACC_STATIC)
    slots, arg_slots = capture_slots(captures)
    descriptor = "(" + "".join(c.descriptor for c in captures) + ")V"

    # check(captures...)
    a = Assembler(pool)
    done, handler = Label(), Label()
    try_start, try_end = Label(), Label()
    emitter = Emitter(a, slots)
    if condition is not None and is_pure(condition) and not gate_first:
        # A condition that can neither throw nor change anything goes first, and a false one returns without
        # reading a field: a volatile read per call is what kept a false condition on a hot line dearer than
        # the same test written in Java (C2 cannot take it out of the loop). A skipped call still finds its
        # slot: it runs with the arguments of the call that stopped (PopFrames restores them), so a pure
        # condition answers true again and reaches the gate.
        emitter.jump(condition, done, False)
        _gate(a, class_name, try_start)
        a.place(try_start)
    else:
        _gate(a, class_name, try_start)
        a.place(try_start)
        if condition is not None:
            emitter.jump(condition, done, False)
    # A condition that throws is a hit like a true one, hit rule included (as by round trip): its throw is
    # counted here, by count() like every hit, and only a throw the rule lets through calls error(). (Counted
    # by the debugger over JDWP instead, a read and a write, the hits other threads counted in between were
    # lost, and the rule let other hits through.)
    count_throws = hit_rule is not None and condition is not None and (gate_first or not is_pure(condition))
    counted_at, condition_handler = Label(), Label()
    # Under a hit rule, the hit's number is kept in a local (hit_number.py): a capture taken in the JVM records
    # it, and the debugger reads it at hit() or error(). Only after the condition held.
    hit_slot = number_slot(captures) if hit_rule is not None else None
    if hit_rule is not None:
        a.place(counted_at)
        _hit_rule(a, class_name, hit_rule, done, hit_slot)
    if message is None and take is not None:
        emit_take(a, class_name, captures, slots, take, done, hit_slot)
    elif message is None:
        a.invoke(bc.INVOKESTATIC, class_name, "hit", "()V")
    else:
        parts: list[Typed] = []
        for p in message:
            if isinstance(p, str):
                parts.append(Typed("const", STRING, value=p))
            elif p.type == STRING:
                parts += [Typed("const", STRING, value=STRING_OPEN), p, Typed("const", STRING, value=STRING_CLOSE)]
            else:
                parts.append(p)
        emitter.concat(parts) if parts else emitter.constant(STRING, "")
        a.invoke(bc.INVOKESTATIC, class_name, "log", f"({STRING})V")
    a.place(try_end)
    a.place(done)
    a.op(bc.RETURN)
    a.place(handler)
    a.invoke(bc.INVOKESTATIC, class_name, "error", "(Ljava/lang/Throwable;)V")
    a.op(bc.RETURN)
    if count_throws:
        assert hit_rule is not None
        held_back = Label()
        a.place(condition_handler)
        a.op(bc.ASTORE, arg_slots)  # the Throwable, while the rule counts
        _hit_rule(a, class_name, hit_rule, held_back, hit_slot)
        a.op(bc.ALOAD, arg_slots)
        a.invoke(bc.INVOKESTATIC, class_name, "error", "(Ljava/lang/Throwable;)V")
        a.place(held_back)
        a.op(bc.RETURN)
        a.handlers.append((try_start, counted_at, condition_handler, 0))
        a.handlers.append((counted_at, try_end, handler, 0))
    else:
        a.handlers.append((try_start, try_end, handler, 0))
    depth = 2 * _size(condition) + 2 * sum(_size(p) for p in message or [] if not isinstance(p, str)) + 8 + \
        (8 if take is not None else 0)
    writer.add_method("check", descriptor, ACC_PUBLIC | ACC_STATIC, a, min(depth, 0xFFFF),
                      arg_slots + 1 + (hit_slot is not None))

    writer.add_method("skipped", "()Z", ACC_STATIC, _skipped(pool, class_name), 4, 2)
    counter = Assembler(pool)  # static synchronized int count(): ++HITS
    counter.field(bc.GETSTATIC, class_name, "HITS", "I")
    counter.op(bc.ICONST_0 + 1)
    counter.op(bc.IADD)
    counter.op(bc.DUP)
    counter.field(bc.PUTSTATIC, class_name, "HITS", "I")
    counter.op(bc.IRETURN)
    writer.add_method("count", "()I", ACC_STATIC | ACC_SYNCHRONIZED, counter, 2, 0)
    for name, desc in (("hit", "()V"), ("error", "(Ljava/lang/Throwable;)V"), ("handover", f"({OBJECTS})V")):
        empty = Assembler(pool)
        empty.op(bc.RETURN)
        writer.add_method(name, desc, ACC_PUBLIC | ACC_STATIC, empty, 0, 1)

    clinit = Assembler(pool)
    clinit.push_int(SKIP_SLOTS)
    clinit.u2(bc.ANEWARRAY, pool.add_class(THREAD))
    clinit.field(bc.PUTSTATIC, class_name, "SKIP", f"[L{THREAD};")
    if message is not None:
        _logging(writer, clinit, class_name)
    clinit.op(bc.RETURN)
    writer.add_method("<clinit>", "()V", ACC_STATIC, clinit, 4, 0)
    return Probe(class_name, writer.to_bytes(), captures)


def _hit_rule(a: Assembler, class_name: str, hit_rule: tuple[str, int], done: Label,
              hit_slot: int | None = None) -> None:
    """count() the hit (kept in `hit_slot` when given), then go on when the rule lets it through, else jump to
    `done`."""
    mode, n = hit_rule
    a.invoke(bc.INVOKESTATIC, class_name, "count", "()I")
    if hit_slot is not None:
        a.op(bc.DUP)
        a.local(bc.ISTORE, hit_slot)
    a.push_int(n)
    if mode == "eq":
        a.branch(bc.IF_ICMPNE, done)
    elif mode == "every":
        a.op(bc.IREM)
        a.branch(bc.IFNE, done)
    else:
        a.branch(bc.IF_ICMPLT, done)


def _gate(a: Assembler, class_name: str, go_on: Label) -> None:
    """Before anything with an effect: return at once for the WAITER or a thread in SKIP; with FORCE, only call
    hit()."""
    evaluate, not_waiter = Label(), Label()
    # WAITER: only the debugger sets it (when it is null), only that thread clears it (when it is itself).
    a.field(bc.GETSTATIC, class_name, "WAITER", f"L{THREAD};")
    a.branch(bc.IFNULL, not_waiter)
    a.field(bc.GETSTATIC, class_name, "WAITER", f"L{THREAD};")
    a.invoke(bc.INVOKESTATIC, THREAD, "currentThread", f"()L{THREAD};")
    a.branch(bc.IF_ACMPNE, not_waiter)
    a.op(bc.ACONST_NULL)
    a.field(bc.PUTSTATIC, class_name, "WAITER", f"L{THREAD};")
    a.op(bc.RETURN)
    a.place(not_waiter)
    # ANY is raised whenever a thread waits in SKIP or FORCE is set (the debugger sets FORCE first, then ANY),
    # and stays raised: SKIP is for the rare second thread stopped at once, FORCE for a retired probe.
    a.field(bc.GETSTATIC, class_name, "ANY", "Z")
    a.branch(bc.IFEQ, go_on)
    a.invoke(bc.INVOKESTATIC, class_name, "skipped", "()Z")
    a.branch(bc.IFEQ, evaluate)
    a.op(bc.RETURN)
    a.place(evaluate)
    # FORCE: the debugger decides every hit (a frame still runs this code after its breakpoint changed).
    a.field(bc.GETSTATIC, class_name, "FORCE", "Z")
    a.branch(bc.IFEQ, go_on)
    a.invoke(bc.INVOKESTATIC, class_name, "hit", "()V")
    a.op(bc.RETURN)


# Nodes that cannot throw, load a class, allocate or call: evaluating them twice is evaluating them once.
PURE_KINDS = {"same", "const", "capture", "neg", "inv", "arith", "compare", "refcompare", "isnull", "not",
              "logic", "cond", "convert"}


def is_pure(node: Typed) -> bool:
    if node.kind not in PURE_KINDS:
        return False
    if node.kind == "arith" and node.value in ("/", "%") and node.type in ("I", "J"):
        return False  # an integer division by zero throws
    return all(is_pure(child) for child in node.args)


def _size(node: Typed | None) -> int:
    return 0 if node is None else 1 + sum(_size(child) for child in node.args)


def _skipped(pool: ConstantPool, class_name: str) -> Assembler:
    """static boolean skipped(): is the current thread in SKIP (then take it out)?"""
    a = Assembler(pool)
    loop, next_slot, no = Label(), Label(), Label()
    a.invoke(bc.INVOKESTATIC, THREAD, "currentThread", f"()L{THREAD};")
    a.op(bc.ASTORE, 0)
    a.op(bc.ICONST_0)
    a.op(bc.ISTORE, 1)
    a.place(loop)
    a.op(bc.ILOAD, 1)
    a.field(bc.GETSTATIC, class_name, "SKIP", f"[L{THREAD};")  # the debugger may give it a longer array
    a.op(bc.ARRAYLENGTH)
    a.branch(bc.IF_ICMPGE, no)
    a.field(bc.GETSTATIC, class_name, "SKIP", f"[L{THREAD};")
    a.op(bc.ILOAD, 1)
    a.op(0x32)  # aaload
    a.op(bc.ALOAD, 0)
    a.branch(bc.IF_ACMPNE, next_slot)
    a.field(bc.GETSTATIC, class_name, "SKIP", f"[L{THREAD};")
    a.op(bc.ILOAD, 1)
    a.op(bc.ACONST_NULL)
    a.op(0x53)  # aastore
    a.op(bc.ICONST_0 + 1)
    a.op(bc.IRETURN)
    a.place(next_slot)
    a.op(0x84, 1, 1)  # iinc 1 1
    a.branch(bc.GOTO, loop)
    a.place(no)
    a.op(bc.ICONST_0)
    a.op(bc.IRETURN)
    return a


def _logging(writer: StaticClassWriter, clinit: Assembler, name: str) -> None:
    """The ring of formatted lines and their threads (logring.py reads it): add(), log(), batch(), flush(),
    lost(), and run() (the shutdown hook)."""
    pool = writer.pool
    writer.add_field("BUF", f"[{STRING}", ACC_STATIC)
    writer.add_field("THR", f"[L{THREAD};", ACC_STATIC)
    writer.add_field("TIME", "[J", ACC_STATIC)  # nanoTime of each line: lines of several logpoints merge by it
    writer.add_field("N", "I", ACC_STATIC | ACC_VOLATILE)  # lines added, ever (mod 2^32): the ring's head
    writer.add_field("READ", "I", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)  # lines read: set by the debugger only
    writer.add_field("FLUSHED", "I", ACC_STATIC)  # lines some batch() already joined for a handover
    writer.add_field("LOST", "I", ACC_STATIC | ACC_VOLATILE)  # lines dropped: the ring stayed full
    writer.add_field("LAST", "J", ACC_STATIC)  # nanoTime of the last batch
    for field_name, element in (("BUF", STRING[1:-1]), ("THR", THREAD)):
        clinit.push_int(RING_LINES)
        clinit.u2(bc.ANEWARRAY, pool.add_class(element))
        clinit.field(bc.PUTSTATIC, name, field_name, f"[L{element};")
    clinit.push_int(RING_LINES)
    clinit.op(bc.NEWARRAY, T_LONG)
    clinit.field(bc.PUTSTATIC, name, "TIME", "[J")
    # Runtime.getRuntime().addShutdownHook(new Probe()): lines still in the ring at exit are handed over.
    clinit.invoke(bc.INVOKESTATIC, "java/lang/Runtime", "getRuntime", "()Ljava/lang/Runtime;")
    clinit.u2(bc.NEW, pool.add_class(name))
    clinit.op(bc.DUP)
    clinit.invoke(bc.INVOKESPECIAL, name, "<init>", "()V")
    clinit.invoke(bc.INVOKEVIRTUAL, "java/lang/Runtime", "addShutdownHook", f"(L{THREAD};)V")

    init = Assembler(pool)
    init.op(bc.ALOAD, 0)
    init.invoke(bc.INVOKESPECIAL, THREAD, "<init>", "()V")
    init.op(bc.RETURN)
    writer.add_method("<init>", "()V", ACC_PUBLIC, init, 1, 1)

    writer.add_method("add", f"({STRING}L{THREAD};)I", ACC_STATIC | ACC_SYNCHRONIZED, _add(pool, name), 6, 2)
    writer.add_method("batch", f"(){OBJECTS}", ACC_STATIC | ACC_SYNCHRONIZED, _batch(pool, name), 8, 9)

    # static void log(String line): add it; a full ring is handed over (the thread waits while the debugger
    # reads) and the line added again, FULL_TRIES times (other threads may fill the room first) before it
    # is counted as lost (no debugger reads it: never spin). A batch is flushed when FLUSH_LINES wait or
    # BATCH_NANOS passed since the last one.
    b = Assembler(pool)
    retry, give_up, added, flush, done = Label(), Label(), Label(), Label(), Label()
    b.invoke(bc.INVOKESTATIC, THREAD, "currentThread", f"()L{THREAD};")
    b.op(bc.ASTORE, 1)
    b.op(bc.ICONST_0)
    b.op(bc.ISTORE, 2)
    b.place(retry)
    b.op(bc.ALOAD, 0)
    b.op(bc.ALOAD, 1)
    b.invoke(bc.INVOKESTATIC, name, "add", f"({STRING}L{THREAD};)I")
    b.op(bc.DUP)
    b.branch(bc.IFGE, added)
    b.op(bc.POP)
    b.op(bc.ILOAD, 2)
    b.push_int(FULL_TRIES)
    b.branch(bc.IF_ICMPGE, give_up)
    b.op(0x84, 2, 1)  # iinc 2 1
    # handover(batch()), even a null one (every line is in a batch on its way): the debugger reads the ring
    b.invoke(bc.INVOKESTATIC, name, "batch", f"(){OBJECTS}")
    b.invoke(bc.INVOKESTATIC, name, "handover", f"({OBJECTS})V")
    b.branch(bc.GOTO, retry)
    b.place(give_up)
    b.invoke(bc.INVOKESTATIC, name, "lost", "()V")
    b.op(bc.RETURN)
    b.place(added)
    b.push_int(FLUSH_LINES)
    b.branch(bc.IF_ICMPGE, flush)
    b.invoke(bc.INVOKESTATIC, "java/lang/System", "nanoTime", "()J")
    b.field(bc.GETSTATIC, name, "LAST", "J")
    b.op(LSUB)
    b.ldc(pool.add_long(BATCH_NANOS), wide2=True)
    b.op(bc.LCMP)
    b.branch(bc.IFLT, done)
    b.place(flush)
    b.invoke(bc.INVOKESTATIC, name, "flush", "()V")
    b.place(done)
    b.op(bc.RETURN)
    writer.add_method("log", f"({STRING})V", ACC_STATIC | ACC_PUBLIC, b, 4, 3)

    # static void flush(): Object[] b = batch(); if (b != null) handover(b)   (outside the lock)
    f = Assembler(pool)
    none = Label()
    f.invoke(bc.INVOKESTATIC, name, "batch", f"(){OBJECTS}")
    f.op(bc.DUP)
    f.branch(bc.IFNULL, none)
    f.invoke(bc.INVOKESTATIC, name, "handover", f"({OBJECTS})V")
    f.op(bc.RETURN)
    f.place(none)
    f.op(bc.POP)
    f.op(bc.RETURN)
    writer.add_method("flush", "()V", ACC_STATIC, f, 2, 0)

    c = Assembler(pool)  # static synchronized void lost(): LOST++
    c.field(bc.GETSTATIC, name, "LOST", "I")
    c.op(bc.ICONST_0 + 1)
    c.op(bc.IADD)
    c.field(bc.PUTSTATIC, name, "LOST", "I")
    c.op(bc.RETURN)
    writer.add_method("lost", "()V", ACC_STATIC | ACC_SYNCHRONIZED, c, 2, 0)

    # void run(), the shutdown hook: handover(batch()) even when null (the rest is in batches on their way):
    # the debugger holds the exiting JVM until every line handed over is recorded.
    r = Assembler(pool)
    r.invoke(bc.INVOKESTATIC, name, "batch", f"(){OBJECTS}")
    r.invoke(bc.INVOKESTATIC, name, "handover", f"({OBJECTS})V")
    r.op(bc.RETURN)
    writer.add_method("run", "()V", ACC_PUBLIC, r, 1, 1)


def _add(pool: ConstantPool, name: str) -> Assembler:
    """static synchronized int add(String line, Thread t): -1 when the ring is full (N - READ), else the
    lines not yet in any batch (N - FLUSHED) with this one."""
    a = Assembler(pool)
    room = Label()
    a.field(bc.GETSTATIC, name, "N", "I")
    a.field(bc.GETSTATIC, name, "READ", "I")
    a.op(bc.ISUB)
    a.push_int(RING_LINES)
    a.branch(bc.IF_ICMPLT, room)
    a.op(bc.ICONST_0 - 1)  # iconst_m1
    a.op(bc.IRETURN)
    a.place(room)
    for field_name, element, slot in (("BUF", STRING, 0), ("THR", f"L{THREAD};", 1)):
        a.field(bc.GETSTATIC, name, field_name, f"[{element}")
        a.field(bc.GETSTATIC, name, "N", "I")
        a.push_int(RING_LINES - 1)
        a.op(bc.IAND)
        a.op(bc.ALOAD, slot)
        a.op(AASTORE)
    a.field(bc.GETSTATIC, name, "TIME", "[J")  # taken under the lock: the times of one ring never go back
    a.field(bc.GETSTATIC, name, "N", "I")
    a.push_int(RING_LINES - 1)
    a.op(bc.IAND)
    a.invoke(bc.INVOKESTATIC, "java/lang/System", "nanoTime", "()J")
    a.op(LASTORE)
    # N is volatile and written after the slots: whoever reads N (the debugger) sees the slots below it.
    a.field(bc.GETSTATIC, name, "N", "I")
    a.op(bc.ICONST_0 + 1)
    a.op(bc.IADD)
    a.field(bc.PUTSTATIC, name, "N", "I")
    a.field(bc.GETSTATIC, name, "N", "I")
    a.field(bc.GETSTATIC, name, "FLUSHED", "I")
    a.op(bc.ISUB)
    a.op(bc.IRETURN)
    return a


def _batch(pool: ConstantPool, name: str) -> Assembler:
    """static synchronized Object[] batch(): the lines from max(READ, FLUSHED) to N as one String -- the first
    line's index, then before each line SEPARATOR, or NEW_THREAD when its thread differs from the line
    before -- those threads, one per change, in a Thread[], and the lines' times (long[]); null when there
    are none. Locals: 0 from, 1 to, 2 the StringBuilder, 3 the threads, 4 i, 5 threads used, 6 this line's
    thread, 7 the line before's, 8 the times."""
    a = Assembler(pool)
    flushed, have_from, some, loop, same, append, end = (Label() for _ in range(7))
    a.field(bc.GETSTATIC, name, "FLUSHED", "I")
    a.field(bc.GETSTATIC, name, "READ", "I")
    a.op(bc.ISUB)
    a.branch(bc.IFGT, flushed)
    a.field(bc.GETSTATIC, name, "READ", "I")
    a.op(bc.ISTORE, 0)
    a.branch(bc.GOTO, have_from)
    a.place(flushed)
    a.field(bc.GETSTATIC, name, "FLUSHED", "I")
    a.op(bc.ISTORE, 0)
    a.place(have_from)
    a.field(bc.GETSTATIC, name, "N", "I")
    a.op(bc.ISTORE, 1)
    a.op(bc.ILOAD, 0)
    a.op(bc.ILOAD, 1)
    a.branch(bc.IF_ICMPNE, some)
    a.op(bc.ACONST_NULL)
    a.op(bc.ARETURN)
    a.place(some)
    a.op(bc.ILOAD, 1)
    a.field(bc.PUTSTATIC, name, "FLUSHED", "I")
    a.invoke(bc.INVOKESTATIC, "java/lang/System", "nanoTime", "()J")
    a.field(bc.PUTSTATIC, name, "LAST", "J")
    a.u2(bc.NEW, pool.add_class(BUILDER))
    a.op(bc.DUP)
    a.invoke(bc.INVOKESPECIAL, BUILDER, "<init>", "()V")
    a.op(bc.ASTORE, 2)
    a.op(bc.ALOAD, 2)
    a.op(bc.ILOAD, 0)
    a.invoke(bc.INVOKEVIRTUAL, BUILDER, "append", f"(I)L{BUILDER};")
    a.op(bc.POP)
    a.op(bc.ILOAD, 1)
    a.op(bc.ILOAD, 0)
    a.op(bc.ISUB)
    a.u2(bc.ANEWARRAY, pool.add_class(THREAD))
    a.op(bc.ASTORE, 3)
    a.op(bc.ALOAD, 3)
    a.op(bc.ARRAYLENGTH)
    a.op(bc.NEWARRAY, T_LONG)
    a.op(bc.ASTORE, 8)
    for slot in (4, 5):
        a.op(bc.ICONST_0)
        a.op(bc.ISTORE, slot)
    a.op(bc.ACONST_NULL)
    a.op(bc.ASTORE, 7)
    a.place(loop)
    a.op(bc.ILOAD, 4)
    a.op(bc.ALOAD, 3)
    a.op(bc.ARRAYLENGTH)
    a.branch(bc.IF_ICMPGE, end)
    a.field(bc.GETSTATIC, name, "THR", f"[L{THREAD};")
    _slot_index(a)
    a.op(AALOAD)
    a.op(bc.ASTORE, 6)
    a.op(bc.ALOAD, 6)
    a.op(bc.ALOAD, 7)
    a.branch(bc.IF_ACMPEQ, same)
    # threads[used++] = t; before = t; sb.append(NEW_THREAD)
    a.op(bc.ALOAD, 3)
    a.op(bc.ILOAD, 5)
    a.op(bc.ALOAD, 6)
    a.op(AASTORE)
    a.op(0x84, 5, 1)  # iinc 5 1
    a.op(bc.ALOAD, 6)
    a.op(bc.ASTORE, 7)
    a.op(bc.ALOAD, 2)
    a.ldc(pool.add_string(NEW_THREAD))
    a.branch(bc.GOTO, append)
    a.place(same)
    a.op(bc.ALOAD, 2)
    a.ldc(pool.add_string(SEPARATOR))
    a.place(append)
    a.invoke(bc.INVOKEVIRTUAL, BUILDER, "append", f"({STRING})L{BUILDER};")
    a.field(bc.GETSTATIC, name, "BUF", f"[{STRING}")
    _slot_index(a)
    a.op(AALOAD)
    a.invoke(bc.INVOKEVIRTUAL, BUILDER, "append", f"({STRING})L{BUILDER};")
    a.op(bc.POP)
    a.op(bc.ALOAD, 8)  # times[i] = TIME[slot]
    a.op(bc.ILOAD, 4)
    a.field(bc.GETSTATIC, name, "TIME", "[J")
    _slot_index(a)
    a.op(LALOAD)
    a.op(LASTORE)
    a.op(0x84, 4, 1)  # iinc 4 1
    a.branch(bc.GOTO, loop)
    a.place(end)
    a.op(bc.ICONST_0 + 3)
    a.u2(bc.ANEWARRAY, pool.add_class("java/lang/Object"))
    a.op(bc.DUP)
    a.op(bc.ICONST_0)
    a.op(bc.ALOAD, 2)
    a.invoke(bc.INVOKEVIRTUAL, BUILDER, "toString", f"(){STRING}")
    a.op(AASTORE)
    a.op(bc.DUP)
    a.op(bc.ICONST_0 + 1)
    a.op(bc.ALOAD, 3)
    a.op(AASTORE)
    a.op(bc.DUP)
    a.op(bc.ICONST_0 + 2)
    a.op(bc.ALOAD, 8)
    a.op(AASTORE)
    a.op(bc.ARETURN)
    return a


def _slot_index(a: Assembler) -> None:
    """Push (from + i) & (RING_LINES - 1): the ring slot of a batch's i-th line (locals 0 and 4)."""
    a.op(bc.ILOAD, 0)
    a.op(bc.ILOAD, 4)
    a.op(bc.IADD)
    a.push_int(RING_LINES - 1)
    a.op(bc.IAND)


def call_payload(pool: ConstantPool, probe: Probe, site: int = 0) -> tuple[bytes, int]:
    """The instructions inserted in the user's method: load every capture, call check. Returns the bytes and
    how much they push at most (for max_stack). `site`: the ordinal a "site" capture passes (which return)."""
    out = bytearray()
    depth = peak = 0
    for c in probe.captures:
        size = slot_size(c.descriptor)
        if c.kind == "local":
            base = {"J": bc.LLOAD, "F": bc.FLOAD, "D": bc.DLOAD}.get(c.descriptor, bc.ILOAD if c.descriptor in "ZBCSI"
                                                                       else bc.ALOAD)
            if c.slot < 256:
                out += bytes([base, c.slot])
            else:
                out += bytes([bc.WIDE, base]) + c.slot.to_bytes(2, "big")
        elif c.kind == "return":  # first, so the value a return instruction returns is on top: copy it
            out += bytes([bc.DUP2 if size == 2 else bc.DUP])
        elif c.kind == "site":
            out += bytes([bc.SIPUSH]) + site.to_bytes(2, "big")
        elif c.kind == "this":
            out += bytes([bc.ALOAD, 0])
        elif c.kind == "field":
            out += bytes([bc.ALOAD, 0, bc.GETFIELD]) + pool.add_field_ref(c.owner, c.name, c.descriptor).to_bytes(2, "big")
            peak = max(peak, depth + 1)
        else:
            out += bytes([bc.GETSTATIC]) + pool.add_field_ref(c.owner, c.name, c.descriptor).to_bytes(2, "big")
        depth += size
        peak = max(peak, depth)
    out += bytes([bc.INVOKESTATIC]) + pool.add_method_ref(probe.class_name, "check", probe.check_descriptor).to_bytes(2, "big")
    return bytes(out), peak
