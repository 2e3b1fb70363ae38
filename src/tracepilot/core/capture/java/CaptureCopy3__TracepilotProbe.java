// The in-JVM half of a capture's reading (core/capture/prefetch.py): while the debugger holds the hitting
// thread, ONE call of copy(...) walks the captured roots and hands back what the debugger would otherwise read
// object by object over JDWP (a program object's fields, a string's text, an array's elements, a JDK
// collection's or map's logical view). The debugger renders the capture from it with its usual code: what is
// not here (a JDK object this walk does not open, a field reflection may not read) is read over JDWP as before,
// so the capture's values are the same either way.
//
// It also says whether it is COMPLETE: whether every value the debugger shows of the capture (to the limits it
// was given) has a record here, so that a capture rendered from it alone is the one read over JDWP -- the rule a
// capture taken without holding the thread must keep. The first value it lacks is named (see `lack`).
//
// JDK internals (core/capture/jdk_fields.py, the debugger's side of the same rule): the fields a class declares in,
// or inherits from, a class of a java.*/jdk.* module are not captured (java.base keeps them closed to
// reflection; a capture shows them as one cut), but those of the logical views (boxes, atomics, enums). A JDK
// object no logical view knows is recorded by its class alone. Bit JDK_INTERNALS of maxDepth asks for them
// anyway: then a copy that cannot read them says it lacks them (and the debugger holds the thread).
//
// Rules: it runs no code of the program's classes (no toString, hashCode, equals, getters: fields by reflection,
// JDK collections only through the JDK's own iterators, and only for the JDK classes listed below), it changes
// nothing the program can see, and it never throws (an object it cannot copy simply has no record).
//
// Build (the bytes are embedded in copier_bytes.py): javac --release 11 -g:none -d OUT CaptureCopy3__TracepilotProbe.java, then
// python -m tracepilot.core.capture.copier_bytes OUT/tracepilot/CaptureCopy3__TracepilotProbe.class
package tracepilot;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;

public final class CaptureCopy3__TracepilotProbe {
    // One walk's state (an instance: no nested class, the copier is one class file). Where the walk is: the
    // objects so far, and the depth (and its root's limit) of the object copied now.
    final ArrayList<Object> objects;
    final ArrayList<Integer> depths;
    final ArrayList<Integer> limits;
    final IdentityHashMap<Object, Integer> index;
    final ArrayList<Integer> needs; // per object, what the debugger reads of it: OPENED, SUMMARY or SHORT
    final int depth;
    final int limit;
    final int k; // the object copied now, and what is read of it
    final int need;
    final String[] lack; // the first value shown that this copy has no record of (null: complete so far)
    final boolean jdkInternals; // the fields of JDK classes are shown (capture_limits jdk_internals)
    boolean shown; // the value passed next is one the object's own summary shows (its first fields, its items)

    private CaptureCopy3__TracepilotProbe(ArrayList<Object> objects, ArrayList<Integer> depths,
                                          ArrayList<Integer> limits, IdentityHashMap<Object, Integer> index,
                                          ArrayList<Integer> needs, int depth, int limit, int k, String[] lack,
                                          boolean jdkInternals) {
        this.objects = objects;
        this.depths = depths;
        this.limits = limits;
        this.index = index;
        this.depth = depth;
        this.limit = limit;
        this.needs = needs;
        this.k = k;
        this.need = needs.get(k);
        this.lack = lack;
        this.jdkInternals = jdkInternals;
    }

    /** In maxDepth: the fields of JDK classes are shown (else one cut the debugger says). */
    public static final int JDK_INTERNALS = 1 << 16;

    // What the debugger reads of a program's object (capture/reader.py, inspect/values.py): all its shown fields
    // when it is opened (a top frame's root, and below it to the depth limit); the first SUMMARY_FIELDS when it
    // is summarized with its fields (a root, and what a root's summary shows); else its class alone.
    private static final int SHORT = 0;
    private static final int SUMMARY = 1;
    private static final int OPENED = 2;
    private static final int SUMMARY_FIELDS = 8;

    private static void lack(String[] lack, String what) {
        if (lack[0] == null) {
            lack[0] = what;
        }
    }


    // Elements of a collection whose summary is all that is shown (inspect's nested summaries show 3).
    private static final int NESTED_ITEMS = 3;

    // JDK collections whose iteration order is the order the debugger's own reader shows (inspect/collections.py),
    // by exact class: a subclass, or a wrapper (Collections.unmodifiableList...) around a collection of the
    // program's own class, would run the program's code. Those are read over JDWP.
    private static final String[] LISTS = {
        "java.util.ArrayList", "java.util.LinkedList", "java.util.ArrayDeque", "java.util.HashSet",
        "java.util.LinkedHashSet", "java.util.TreeSet", "java.util.Arrays$ArrayList",
        "java.util.concurrent.CopyOnWriteArrayList", "java.util.ImmutableCollections$ListN",
        "java.util.ImmutableCollections$List12", "java.util.Collections$SingletonList",
        "java.util.Collections$EmptyList", "java.util.Collections$EmptySet", "java.util.PriorityQueue"};
    private static final String[] MAPS = {
        "java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.concurrent.ConcurrentHashMap",
        "java.util.Collections$EmptyMap", "java.util.Collections$SingletonMap"};

    /** copy() of up to 8 roots passed one by one (the debugger needs no array made in the JVM for them). */
    public static Object[] copy8(int n, int deep, int maxDepth, int items, int maxFields, int maxChars,
                                 int maxObjects, Object r0, Object r1, Object r2, Object r3, Object r4, Object r5,
                                 Object r6, Object r7) {
        Object[] all = {r0, r1, r2, r3, r4, r5, r6, r7};
        Object[] roots = new Object[Math.max(0, Math.min(n, 8))];
        System.arraycopy(all, 0, roots, 0, roots.length);
        return copy(roots, deep, maxDepth, items, maxFields, maxChars, maxObjects);
    }

    /**
     * Walk `roots` breadth first: the first `deep` roots `maxDepth` levels below them, the others one level
     * (what their summaries show); the level after that only for the objects' classes. At most `maxObjects`
     * objects; of a collection, map or array at most `items` elements, of an object its first `maxFields`
     * fields (base class first), of a string at most `maxChars` characters (a longer one has no record).
     * Returns {String "objects;classes;" + records, Object[] objects, Class[] classes}: object k of the
     * records is objects[k] (roots first, in order), its class classes[c].
     */
    public static Object[] copy(Object[] roots, int deep, int maxDepth, int items, int maxFields, int maxChars,
                                int maxObjects) {
        boolean jdkInternals = (maxDepth & JDK_INTERNALS) != 0;
        maxDepth &= JDK_INTERNALS - 1;
        StringBuilder out = new StringBuilder();
        ArrayList<Object> objects = new ArrayList<>();
        ArrayList<Integer> depths = new ArrayList<>();
        ArrayList<Integer> limits = new ArrayList<>();
        ArrayList<Class<?>> classes = new ArrayList<>();
        IdentityHashMap<Object, Integer> index = new IdentityHashMap<>();
        IdentityHashMap<Class<?>, Integer> classIndex = new IdentityHashMap<>();
        String[] lack = {null};
        ArrayList<Integer> needs = new ArrayList<>();
        try {
            for (int i = 0; i < roots.length; i++) {
                Object root = roots[i];
                if (root != null && !index.containsKey(root)) {
                    index.put(root, objects.size());
                    objects.add(root);
                    depths.add(0);
                    limits.add(i < deep ? maxDepth : 1);
                    needs.add(i < deep ? OPENED : SUMMARY);
                }
            }
            for (int k = 0; k < objects.size(); k++) {
                Object o = objects.get(k);
                int depth = depths.get(k);
                int limit = limits.get(k);
                if (depth > limit + 1) {
                    continue; // (not shown)
                }
                if (k >= maxObjects) {
                    lack(lack, "objects beyond the copy's " + maxObjects);
                    break; // (the rest is read over JDWP)
                }
                StringBuilder record = new StringBuilder();
                try {
                    Class<?> c = o.getClass();
                    Integer ci = classIndex.get(c);
                    if (ci == null) {
                        ci = classes.size();
                        classIndex.put(c, ci);
                        classes.add(c);
                    }
                    record.append('R').append(k).append(';').append(ci).append(';');
                    int budget = Math.max(0, maxObjects - objects.size());
                    CaptureCopy3__TracepilotProbe w =
                        new CaptureCopy3__TracepilotProbe(objects, depths, limits, index, needs, depth, limit, k,
                                                          lack, jdkInternals);
                    int need = needs.get(k);
                    if ((depth > limit || need == SHORT) && !jdkModule(c) && !(o instanceof Enum)) {
                        // its class only: shown as a short summary (Type @id), nothing it holds is shown
                        record.append('T');
                    } else if (!body(record, o, c, need == SHORT ? 0 : depth > limit ? Math.min(items, NESTED_ITEMS)
                                     : items, maxFields, maxChars, budget, w)) {
                        if (!(o instanceof String)) { // (a long string's text never changes: JDWP reads it)
                            lack(lack, "a " + c.getName());
                        }
                        continue;
                    }
                } catch (Throwable t) {
                    lack(lack, "an object whose copy threw " + t.getClass().getName());
                    continue; // (no record: the debugger reads this object over JDWP)
                }
                out.append(record);
            }
        } catch (Throwable t) {
            lack(lack, "the rest: the copy threw " + t.getClass().getName()); // what was copied so far stands
        }
        String lacks = lack[0] == null ? "" : lack[0];
        Object[] result = new Object[3];
        // (the arrays' lengths: no request; then what it lacks, "" when complete)
        result[0] = objects.size() + ";" + classes.size() + ";" + lacks.length() + ":" + lacks + out;
        result[1] = objects.toArray();
        result[2] = classes.toArray(new Class<?>[0]);
        return result;
    }

    private static boolean body(StringBuilder r, Object o, Class<?> c, int items, int maxFields, int maxChars,
                                int budget, CaptureCopy3__TracepilotProbe w) throws Throwable {
        if (o instanceof String) {
            String s = (String) o;
            if (s.length() > maxChars) {
                return false;
            }
            r.append('S');
            text(r, s);
            return true;
        }
        if (c.isArray()) {
            int length = Array.getLength(o);
            int n = Math.min(length, Math.min(items, budget));
            if (n < Math.min(length, items)) {
                lack(w.lack, "elements of a " + c.getName() + " beyond the copy's budget");
            }
            Class<?> e = c.getComponentType();
            r.append('A').append(length).append(';').append(n).append(';');
            w.shown = true;
            for (int i = 0; i < n; i++) {
                value(r, e.isPrimitive() ? e : null, Array.get(o, i), w);
            }
            return true;
        }
        if (isBox(c)) {
            r.append('B');
            value(r, primitiveOf(c), o, w);
            return true;
        }
        String name = c.getName();
        if (o instanceof java.util.concurrent.atomic.AtomicInteger) {
            r.append('B');
            value(r, int.class, ((java.util.concurrent.atomic.AtomicInteger) o).get(), w);
            return true;
        }
        if (o instanceof java.util.concurrent.atomic.AtomicLong) {
            r.append('B');
            value(r, long.class, ((java.util.concurrent.atomic.AtomicLong) o).get(), w);
            return true;
        }
        if (o instanceof java.util.concurrent.atomic.AtomicBoolean) {
            r.append('B'); // (its field is an int)
            value(r, int.class, ((java.util.concurrent.atomic.AtomicBoolean) o).get() ? 1 : 0, w);
            return true;
        }
        if (o instanceof java.util.concurrent.atomic.AtomicReference) {
            r.append('B');
            value(r, null, ((java.util.concurrent.atomic.AtomicReference<?>) o).get(), w);
            return true;
        }
        if (listed(LISTS, name)) {
            Collection<?> col = (Collection<?>) o;
            int size = col.size();
            int n = Math.min(size, Math.min(items, budget));
            StringBuilder elements = new StringBuilder();
            w.shown = true;
            Iterator<?> it = col.iterator();
            int got = 0;
            while (got < n && it.hasNext()) {
                value(elements, null, it.next(), w);
                got++;
            }
            if (got < Math.min(size, items)) {
                lack(w.lack, "elements of a " + name);
            }
            r.append('L').append(size).append(';').append(got).append(';').append(elements);
            return true;
        }
        if (listed(MAPS, name)) {
            Map<?, ?> map = (Map<?, ?>) o;
            int size = map.size();
            int n = Math.min(size, Math.min(items, budget / 2));
            StringBuilder entries = new StringBuilder();
            w.shown = true;
            Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
            int got = 0;
            while (got < n && it.hasNext()) {
                Map.Entry<?, ?> entry = it.next();
                value(entries, null, entry.getKey(), w);
                value(entries, null, entry.getValue(), w);
                got++;
            }
            if (got < Math.min(size, items)) {
                lack(w.lack, "entries of a " + name);
            }
            r.append('M').append(size).append(';').append(got).append(';').append(entries);
            return true;
        }
        if (c == Object.class) {
            r.append('T'); // (a lock, a marker: no fields to show)
            return true;
        }
        if (jdkModule(c) && !(o instanceof Enum)) {
            if (w.jdkInternals || hasLogicalView(o, name)) {
                return false; // (its fields, or what its view reads of them: read over JDWP, with the thread held)
            }
            r.append('T'); // its fields are JDK internals: its class only (the debugger says the cut)
            return true;
        }
        // A program's object: its first instance fields, by level and name (its JDK superclasses' fields are
        // closed to reflection, but Enum's name and ordinal: those are read over JDWP when shown).
        ArrayList<Class<?>> chain = new ArrayList<>();
        for (Class<?> t = c; t != null; t = t.getSuperclass()) {
            chain.add(t);
        }
        StringBuilder fields = new StringBuilder();
        int count = 0;
        int plain = 0; // fields before this one that a summary shows (not synthetic)
        for (int level = chain.size() - 1; level >= 0 && count < maxFields; level--) {
            Class<?> t = chain.get(level);
            String tn = t.getName();
            if (tn.equals("java.lang.Object") || tn.equals("java.lang.Record")) {
                continue;
            }
            if (tn.equals("java.lang.Enum")) {
                Enum<?> e = (Enum<?>) o;
                field(fields, level, "name");
                value(fields, null, e.name(), w);
                field(fields, level, "ordinal");
                value(fields, int.class, e.ordinal(), w);
                count += 2;
                continue;
            }
            if (jdkModule(t)) {
                if (w.jdkInternals && w.need != SHORT && !(o instanceof Enum) && hasFields(t)) {
                    // its JDK superclass's fields are closed to reflection (or hidden from it): shown, not copied
                    lack(w.lack, "the fields " + name + " inherits from " + tn);
                }
                continue;
            }
            for (Field f : t.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (count >= maxFields) {
                    break;
                }
                boolean summarized = plain < SUMMARY_FIELDS;
                if (!f.isSynthetic()) {
                    plain++;
                }
                w.shown = summarized;
                Object v;
                try {
                    f.setAccessible(true);
                    v = f.get(o);
                } catch (Throwable closed) {
                    if (w.need == OPENED || (w.need == SUMMARY && summarized)) {
                        lack(w.lack, "the field " + f.getName() + " of a " + name);
                    }
                    continue; // (left to JDWP)
                }
                field(fields, level, f.getName());
                Class<?> ft = f.getType();
                value(fields, ft.isPrimitive() ? ft : null, v, w);
                count++;
            }
        }
        r.append('F').append(count).append(';').append(fields);
        return true;
    }

    private static void field(StringBuilder r, int level, String name) {
        r.append(level).append(';');
        text(r, name);
    }

    private static void text(StringBuilder r, String s) {
        r.append(s.length()).append(':').append(s);
    }

    /** A value: N; null, rK; object K (added to the walk), or a primitive: its type letter and value. */
    private static void value(StringBuilder r, Class<?> primitive, Object v, CaptureCopy3__TracepilotProbe w) {
        if (v == null) {
            r.append("N;");
            return;
        }
        if (primitive != null) {
            if (primitive == int.class) {
                r.append('I').append(((Integer) v).intValue());
            } else if (primitive == long.class) {
                r.append('J').append(((Long) v).longValue());
            } else if (primitive == boolean.class) {
                r.append('Z').append(((Boolean) v).booleanValue() ? 1 : 0);
            } else if (primitive == byte.class) {
                r.append('B').append(((Byte) v).byteValue());
            } else if (primitive == short.class) {
                r.append('S').append(((Short) v).shortValue());
            } else if (primitive == char.class) {
                r.append('C').append((int) ((Character) v).charValue());
            } else if (primitive == float.class) {
                r.append('F').append(Float.floatToRawIntBits((Float) v));
            } else {
                r.append('D').append(Double.doubleToRawLongBits((Double) v));
            }
            r.append(';');
            return;
        }
        // Opened below an opened object to the depth limit; summarized when a root's summary shows it.
        int need = w.need == OPENED && w.depth + 1 < w.limit ? OPENED : (w.depth == 0 && w.shown ? SUMMARY : SHORT);
        Integer k = w.index.get(v);
        if (k == null) {
            k = w.objects.size();
            w.index.put(v, k);
            w.objects.add(v);
            w.depths.add(w.depth + 1);
            w.limits.add(w.limit);
            w.needs.add(need);
        } else if (need > w.needs.get(k)) {
            if (k <= w.k) {
                lack(w.lack, "an object shown twice, read more the second time"); // (copied already)
            }
            w.needs.set(k, need);
        }
        r.append('r').append(k.intValue()).append(';');
    }

    /** Does JDK class `t` declare instance fields (which a summary of its subclass's object shows)? A class
     * whose fields reflection hides (a ClassLoader's) is said to. */
    private static boolean hasFields(Class<?> t) {
        if (t == ClassLoader.class) {
            return true;
        }
        for (Field f : t.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                return true;
            }
        }
        return false;
    }

    private static boolean listed(String[] names, String name) {
        for (String n : names) {
            if (n.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /** Is `c` a JDK class: one of a named module whose name starts with java. or jdk.? */
    private static boolean jdkModule(Class<?> c) {
        Module m = c.getModule();
        if (!m.isNamed()) {
            return false;
        }
        String n = m.getName();
        return n.startsWith("java.") || n.startsWith("jdk.");
    }

    /** Does the debugger show this JDK object by a view it reads from the object's fields (a collection or a map
     * the copy does not list, a text, a number, a date, an Optional)? Those are not JDK internals to cut. */
    private static boolean hasLogicalView(Object o, String name) {
        return listed(VIEWED, name);
    }

    // The JDK classes the debugger shows by such a view, by exact name (core/capture/jdk_fields.py's VIEWED).
    private static final String[] VIEWED = {
        "java.lang.StringBuffer", "java.lang.StringBuilder", "java.math.BigDecimal", "java.math.BigInteger",
        "java.sql.Date", "java.sql.Timestamp", "java.time.Duration", "java.time.Instant", "java.time.LocalDate",
        "java.time.LocalDateTime", "java.time.LocalTime", "java.time.OffsetDateTime", "java.time.ZoneOffset",
        "java.time.ZoneRegion", "java.time.ZonedDateTime", "java.util.ArrayDeque", "java.util.ArrayList",
        "java.util.Arrays$ArrayList", "java.util.Collections$EmptyList", "java.util.Collections$EmptyMap",
        "java.util.Collections$EmptySet", "java.util.Collections$SingletonList",
        "java.util.Collections$SingletonMap", "java.util.Collections$SingletonSet",
        "java.util.Collections$SynchronizedCollection", "java.util.Collections$SynchronizedList",
        "java.util.Collections$SynchronizedMap", "java.util.Collections$SynchronizedRandomAccessList",
        "java.util.Collections$SynchronizedSet", "java.util.Collections$UnmodifiableCollection",
        "java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableMap",
        "java.util.Collections$UnmodifiableNavigableMap", "java.util.Collections$UnmodifiableNavigableSet",
        "java.util.Collections$UnmodifiableRandomAccessList", "java.util.Collections$UnmodifiableSet",
        "java.util.Collections$UnmodifiableSortedMap", "java.util.Collections$UnmodifiableSortedSet",
        "java.util.Date", "java.util.HashMap", "java.util.HashSet", "java.util.Hashtable",
        "java.util.IdentityHashMap", "java.util.ImmutableCollections$List12", "java.util.ImmutableCollections$ListN",
        "java.util.ImmutableCollections$Map1", "java.util.ImmutableCollections$MapN",
        "java.util.ImmutableCollections$Set12", "java.util.ImmutableCollections$SetN", "java.util.LinkedHashMap",
        "java.util.LinkedHashSet", "java.util.LinkedList", "java.util.Optional", "java.util.PriorityQueue",
        "java.util.Properties", "java.util.Stack", "java.util.TreeMap", "java.util.TreeSet", "java.util.UUID",
        "java.util.Vector", "java.util.WeakHashMap", "java.util.concurrent.ConcurrentHashMap",
        "java.util.concurrent.ConcurrentSkipListSet", "java.util.concurrent.CopyOnWriteArrayList"};


    private static boolean isBox(Class<?> c) {
        return c == Integer.class || c == Long.class || c == Boolean.class || c == Byte.class || c == Short.class
            || c == Character.class || c == Float.class || c == Double.class;
    }

    private static Class<?> primitiveOf(Class<?> c) {
        if (c == Integer.class) return int.class;
        if (c == Long.class) return long.class;
        if (c == Boolean.class) return boolean.class;
        if (c == Byte.class) return byte.class;
        if (c == Short.class) return short.class;
        if (c == Character.class) return char.class;
        if (c == Float.class) return float.class;
        return double.class;
    }
}
