"""The probe: a generated class next to the user's class, and the call inserted at the breakpoint's line.

    static void check(captures...)    the inserted code calls this at the line; it evaluates the condition
    static void hit()                 called when the condition is true: the debugger's breakpoint is here
    static void error(Throwable)      called when evaluating threw: a breakpoint too (a condition error)
    static void handover(String)      logpoints: a batch of formatted lines (RS-separated) for the debugger

``check`` never throws into the program: its body is wrapped in a catch-all that calls ``error``. When the
debugger stops at ``hit`` it pops the probe's frames, so the thread stands at the user's line (frame 0 is
the user's method) and the inserted call runs again on resume; the debugger first puts the thread in
``SKIP`` so that second call returns at once instead of evaluating the condition twice. ``FORCE`` makes
every call go straight to ``hit`` without evaluating anything: with no request left on ``hit``, that makes
the probe inert, which is how a removed breakpoint's probe waits until its class can be restored without
redefining it under a running frame.

Logpoints format the line in the JVM and buffer it; the buffer goes to the debugger in one suspension per
batch (when 16384 lines wait, when 50 ms passed since the last handover, and at JVM shutdown): a suspension
per batch instead of per line is what keeps a hot logpoint from slowing the program by a round trip a hit.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import bytecode as bc
from .assemble import (
    ACC_FINAL,
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
from .shapes import STRING, Capture, Typed

SEPARATOR = "\u001e"  # between the lines of a logpoint batch (ASCII record separator)
# Around each String value in a log line: the debugger escapes and cuts it as its own rendering does.
STRING_OPEN, STRING_CLOSE = "\u0001", "\u0002"
BATCH_LINES = 16384
BATCH_NANOS = 50_000_000
SKIP_SLOTS = 16
THREAD = "java/lang/Thread"


@dataclass
class Probe:
    class_name: str  # internal name
    data: bytes
    captures: list[Capture]

    @property
    def check_descriptor(self) -> str:
        return "(" + "".join(c.descriptor for c in self.captures) + ")V"


def build_probe(class_name: str, captures: list[Capture], condition: Typed | None,
                message: list[Typed | str] | None, hit_rule: tuple[str, int] | None = None) -> Probe:
    """A probe that calls hit() when `condition` holds (always when None), or logs `message` instead; with a
    hit rule, only the hits (condition true) it lets through: the n-th ("eq"), every n-th, from the n-th on."""
    writer = StaticClassWriter(class_name, superclass=THREAD if message is not None else "java/lang/Object")
    pool = writer.pool
    writer.add_field("ANY", "Z", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)
    writer.add_field("SKIP", f"[L{THREAD};", ACC_PUBLIC | ACC_STATIC | ACC_FINAL)
    writer.add_field("FORCE", "Z", ACC_PUBLIC | ACC_STATIC | ACC_VOLATILE)
    writer.add_field("HITS", "I", ACC_PUBLIC | ACC_STATIC)  # condition-true hits, read by the debugger
    slots, arg_slots = capture_slots(captures)
    descriptor = "(" + "".join(c.descriptor for c in captures) + ")V"

    # check(captures...)
    a = Assembler(pool)
    evaluate, done, handler = Label(), Label(), Label()
    try_start, try_end = Label(), Label()
    a.field(bc.GETSTATIC, class_name, "ANY", "Z")
    a.branch(bc.IFEQ, evaluate)
    a.invoke(bc.INVOKESTATIC, class_name, "skipped", "()Z")
    a.branch(bc.IFEQ, evaluate)
    a.op(bc.RETURN)
    a.place(evaluate)
    # FORCE: the debugger decides every hit (a frame still runs this code after its breakpoint changed).
    a.field(bc.GETSTATIC, class_name, "FORCE", "Z")
    a.branch(bc.IFEQ, try_start)
    a.invoke(bc.INVOKESTATIC, class_name, "hit", "()V")
    a.op(bc.RETURN)
    a.place(try_start)
    emitter = Emitter(a, slots)
    if condition is not None:
        emitter.jump(condition, done, False)
    if hit_rule is not None:
        mode, n = hit_rule
        a.invoke(bc.INVOKESTATIC, class_name, "count", "()I")
        a.push_int(n)
        if mode == "eq":
            a.branch(bc.IF_ICMPNE, done)
        elif mode == "every":
            a.op(bc.IREM)
            a.branch(bc.IFNE, done)
        else:
            a.branch(bc.IF_ICMPLT, done)
    if message is None:
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
    a.handlers.append((try_start, try_end, handler, 0))
    depth = 2 * _size(condition) + 2 * sum(_size(p) for p in message or [] if not isinstance(p, str)) + 8
    writer.add_method("check", descriptor, ACC_PUBLIC | ACC_STATIC, a, min(depth, 0xFFFF), max(arg_slots, 1))

    writer.add_method("skipped", "()Z", ACC_STATIC, _skipped(pool, class_name), 4, 2)
    counter = Assembler(pool)  # static synchronized int count(): ++HITS
    counter.field(bc.GETSTATIC, class_name, "HITS", "I")
    counter.op(bc.ICONST_0 + 1)
    counter.op(bc.IADD)
    counter.op(bc.DUP)
    counter.field(bc.PUTSTATIC, class_name, "HITS", "I")
    counter.op(bc.IRETURN)
    writer.add_method("count", "()I", ACC_STATIC | ACC_SYNCHRONIZED, counter, 2, 0)
    for name, desc in (("hit", "()V"), ("error", "(Ljava/lang/Throwable;)V"), ("handover", f"({STRING})V")):
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
    a.push_int(SKIP_SLOTS)
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
    """BUF/N/LAST, log(String) (buffer; hand over a full or old batch), take() and run() (the shutdown hook)."""
    pool = writer.pool
    writer.add_field("BUF", f"[{STRING}", ACC_STATIC)
    writer.add_field("N", "I", ACC_STATIC)
    writer.add_field("LAST", "J", ACC_STATIC)
    clinit.push_int(BATCH_LINES)
    clinit.u2(bc.ANEWARRAY, pool.add_class(STRING[1:-1]))
    clinit.field(bc.PUTSTATIC, name, "BUF", f"[{STRING}")
    # Runtime.getRuntime().addShutdownHook(new Probe()): lines still buffered at exit are handed over.
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

    # static synchronized String take(String line, boolean force): add the line (if any); the joined batch
    # when it is due (full, old, or forced), else null.
    a = Assembler(pool)
    add_done, due, keep = Label(), Label(), Label()
    a.op(bc.ALOAD, 0)
    a.branch(bc.IFNULL, add_done)
    a.field(bc.GETSTATIC, name, "BUF", f"[{STRING}")
    a.field(bc.GETSTATIC, name, "N", "I")
    a.op(bc.ALOAD, 0)
    a.op(0x53)  # aastore
    a.field(bc.GETSTATIC, name, "N", "I")
    a.op(bc.ICONST_0 + 1)
    a.op(bc.IADD)
    a.field(bc.PUTSTATIC, name, "N", "I")
    a.place(add_done)
    a.field(bc.GETSTATIC, name, "N", "I")
    a.branch(bc.IFEQ, keep)  # nothing to hand over
    a.op(bc.ILOAD, 1)
    a.branch(bc.IFNE, due)
    a.field(bc.GETSTATIC, name, "N", "I")
    a.push_int(BATCH_LINES)
    a.branch(bc.IF_ICMPGE, due)
    a.invoke(bc.INVOKESTATIC, "java/lang/System", "nanoTime", "()J")
    a.field(bc.GETSTATIC, name, "LAST", "J")
    a.op(0x65)  # lsub
    a.ldc(pool.add_long(BATCH_NANOS), wide2=True)
    a.op(bc.LCMP)
    a.branch(bc.IFLT, keep)
    a.place(due)
    # String batch = String.join(SEP, Arrays.copyOf(BUF, N)); N = 0; LAST = nanoTime(); return batch
    a.ldc(pool.add_string(SEPARATOR))
    a.field(bc.GETSTATIC, name, "BUF", f"[{STRING}")
    a.field(bc.GETSTATIC, name, "N", "I")
    a.invoke(bc.INVOKESTATIC, "java/util/Arrays", "copyOf", "([Ljava/lang/Object;I)[Ljava/lang/Object;")
    a.u2(bc.CHECKCAST, pool.add_class("[Ljava/lang/CharSequence;"))
    a.invoke(bc.INVOKESTATIC, "java/lang/String", "join",
             "(Ljava/lang/CharSequence;[Ljava/lang/CharSequence;)Ljava/lang/String;")
    a.op(bc.ICONST_0)
    a.field(bc.PUTSTATIC, name, "N", "I")
    a.invoke(bc.INVOKESTATIC, "java/lang/System", "nanoTime", "()J")
    a.field(bc.PUTSTATIC, name, "LAST", "J")
    a.op(bc.ARETURN)
    a.place(keep)
    a.op(bc.ACONST_NULL)
    a.op(bc.ARETURN)
    writer.add_method("take", f"({STRING}Z){STRING}", ACC_STATIC | ACC_SYNCHRONIZED, a, 6, 2)

    # static void log(String line) / void run(): take, and hand a due batch over outside the lock.
    for method, access, load_line, force in (("log", ACC_STATIC, True, False), ("run", ACC_PUBLIC, False, True)):
        b = Assembler(pool)
        skip = Label()
        b.op(bc.ALOAD, 0) if load_line else b.op(bc.ACONST_NULL)
        b.op(bc.ICONST_0 + int(force))
        b.invoke(bc.INVOKESTATIC, name, "take", f"({STRING}Z){STRING}")
        b.op(bc.DUP)
        b.branch(bc.IFNULL, skip)
        b.invoke(bc.INVOKESTATIC, name, "handover", f"({STRING})V")
        b.op(bc.RETURN)
        b.place(skip)
        b.op(bc.POP)
        b.op(bc.RETURN)
        writer.add_method(method, f"({STRING})V" if load_line else "()V", access | ACC_PUBLIC, b, 3, 1)


def call_payload(pool: ConstantPool, probe: Probe) -> tuple[bytes, int]:
    """The instructions inserted in the user's method: load every capture, call check. Returns the bytes and
    how much they push at most (for max_stack)."""
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
