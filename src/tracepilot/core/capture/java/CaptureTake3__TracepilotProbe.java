// A capture taken inside the JVM without holding the thread (core/capture/in_probe.py): a capture point's probe
// calls take(...) once its condition holds. take counts the point's captures and its rate in the JVM, copies the
// values with the copier (CaptureCopy3__TracepilotProbe: the same walk, the same limits, its own verdict on
// whether the copy covers everything a capture shows), records the stack (StackWalker: class, method, bytecode
// index; the debugger maps them through its own line tables) and puts the record in a ring the debugger drains
// over JDWP while everything runs. It returns FALL_BACK when the copy is not complete (or anything failed): the
// probe then calls hit(), and the debugger reads that capture with the thread held (the round trip).
//
// Rules: it runs no code of the program's classes, changes nothing the program can see and never throws.
//
// Build (the bytes are embedded in take_bytes.py): javac --release 11 -g:none -cp OUT -d OUT ... see take_bytes.py
package tracepilot;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.function.Consumer;

public final class CaptureTake3__TracepilotProbe implements Consumer<StackWalker.StackFrame> {
    public static final int POINTS = 256;
    public static final int SLOTS = 512; // records the ring holds until the debugger reads them
    public static final int SETTINGS = 6; // per point: depth, items, fields, chars, objects (the copy's limits), rate
    public static final int TAKEN_OR_SKIPPED = 0;
    public static final int FALL_BACK = 1;

    // Set by the debugger before the point's probe runs (a point's id is its index).
    public static final int[] LIMIT = new int[POINTS]; // captures the point takes (0: off)
    public static final boolean[] HELD = new boolean[POINTS]; // its copies keep falling short: straight to hit()
    public static final int[] SETTING = new int[POINTS * SETTINGS];
    // Kept here, read by the debugger.
    public static final int[] TAKEN = new int[POINTS]; // captures taken, in the ring or handed to the round trip
    public static final int[] SKIPPED = new int[POINTS]; // hits the rate limit let by
    public static final String[] LACKS = new String[POINTS]; // why the last capture fell back to the round trip
    static final double[] TOKENS = new double[POINTS]; // set by the debugger too: what its rate limit had left
    static final long[] STAMP = new long[POINTS]; // (0: TOKENS as the debugger set them)
    public static final Object[] RING = new Object[SLOTS];
    public static volatile int N; // records added, ever
    public static volatile int READ; // records the debugger has read (it clears their slots)
    static final Object LOCK = new Object();
    static final StackWalker WALKER = StackWalker.getInstance(
        EnumSet.of(StackWalker.Option.RETAIN_CLASS_REFERENCE, StackWalker.Option.SHOW_HIDDEN_FRAMES));

    // One walk of the stack (an instance: the class is one class file).
    final StringBuilder frames = new StringBuilder();
    final ArrayList<Class<?>> classes = new ArrayList<>();

    private CaptureTake3__TracepilotProbe() {
    }

    @Override
    public void accept(StackWalker.StackFrame f) {
        classes.add(f.getDeclaringClass());
        String name = f.getMethodName();
        String descriptor = f.getDescriptor();
        frames.append(name.length()).append(':').append(name).append(descriptor.length()).append(':')
            .append(descriptor).append(f.getByteCodeIndex()).append(';');
    }

    /** A passing hit of point `point`: `kinds` has one letter per value (its descriptor's first, L for a reference;
     * primitives come boxed), then anything the debugger wants back in the record. TAKEN_OR_SKIPPED, or FALL_BACK: the debugger takes this capture by round trip. */
    public static int take(int point, String kinds, Object[] values) {
        long started = System.nanoTime();
        int skipped;
        try {
            synchronized (LOCK) {
                if (TAKEN[point] >= LIMIT[point]) {
                    return TAKEN_OR_SKIPPED; // done (its probe is going)
                }
                double rate = SETTING[point * SETTINGS + 5] / 1000.0;
                double capacity = Math.max(rate, 1.0);
                double tokens = STAMP[point] == 0 ? Math.min(capacity, TOKENS[point]) // (the debugger's, at the move)
                    : Math.min(capacity, TOKENS[point] + (started - STAMP[point]) * rate / 1e9);
                STAMP[point] = started;
                if (tokens < 1.0) {
                    TOKENS[point] = tokens;
                    SKIPPED[point]++;
                    return TAKEN_OR_SKIPPED;
                }
                TOKENS[point] = tokens - 1.0;
                TAKEN[point]++;
                skipped = SKIPPED[point]; // (the hits skipped before this one: the capture says so)
                if (HELD[point]) {
                    return FALL_BACK;
                }
                if (N - READ >= SLOTS) {
                    LACKS[point] = "room in the ring (the debugger has not read it yet)";
                    return FALL_BACK;
                }
            }
            ArrayList<Object> roots = new ArrayList<>();
            for (int i = 0; i < values.length; i++) {
                if (kinds.charAt(i) == 'L' && values[i] != null) {
                    roots.add(values[i]);
                }
            }
            int s = point * SETTINGS;
            Object[] copied = CaptureCopy3__TracepilotProbe.copy(roots.toArray(), roots.size(), SETTING[s],
                                                                SETTING[s + 1], SETTING[s + 2], SETTING[s + 3],
                                                                SETTING[s + 4]);
            String head = (String) copied[0];
            int colon = head.indexOf(':');
            int semi = head.lastIndexOf(';', colon);
            int lacks = Integer.parseInt(head.substring(semi + 1, colon));
            if (lacks > 0) {
                LACKS[point] = head.substring(colon + 1, colon + 1 + lacks);
                return FALL_BACK;
            }
            Object[] objects = (Object[]) copied[1];
            StringBuilder out = new StringBuilder();
            out.append(point).append(';').append(System.currentTimeMillis()).append(';').append(skipped).append(';')
                .append(kinds.length())
                .append(':').append(kinds); // (its letters, then what the debugger put after them: the names)
            for (int i = 0; i < values.length; i++) {
                value(out, kinds.charAt(i), values[i], objects);
            }
            CaptureTake3__TracepilotProbe walk = new CaptureTake3__TracepilotProbe();
            WALKER.forEach(walk);
            out.append(System.nanoTime() - started).append(';').append(walk.frames);
            Object[] record = {out.toString(), copied, walk.classes.toArray(new Class<?>[0]), Thread.currentThread()};
            synchronized (LOCK) {
                if (N - READ >= SLOTS) {
                    LACKS[point] = "room in the ring (the debugger has not read it yet)";
                    return FALL_BACK;
                }
                RING[N & (SLOTS - 1)] = record;
                N = N + 1;
            }
            return TAKEN_OR_SKIPPED;
        } catch (Throwable t) {
            LACKS[point] = "a capture in the JVM that threw " + t.getClass().getName();
            return FALL_BACK;
        }
    }

    /** A value as the copier writes one: N; null, rK; the copy's object K, or a primitive's letter and value. */
    private static void value(StringBuilder r, char kind, Object v, Object[] objects) {
        if (v == null) {
            r.append("N;");
            return;
        }
        switch (kind) {
            case 'L':
                for (int k = 0; k < objects.length; k++) {
                    if (objects[k] == v) {
                        r.append('r').append(k).append(';');
                        return;
                    }
                }
                r.append("N;"); // (never: every root is one of the copy's objects)
                return;
            case 'Z':
                r.append('Z').append(((Boolean) v).booleanValue() ? 1 : 0);
                break;
            case 'C':
                r.append('C').append((int) ((Character) v).charValue());
                break;
            case 'F':
                r.append('F').append(Float.floatToRawIntBits((Float) v));
                break;
            case 'D':
                r.append('D').append(Double.doubleToRawLongBits((Double) v));
                break;
            case 'J':
                r.append('J').append(((Long) v).longValue());
                break;
            default: // I, S, B: boxed as their own type
                r.append(kind).append(((Number) v).longValue());
        }
        r.append(';');
    }
}
