import com.sun.jdi.ArrayReference;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Field;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.MethodEntryRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * JDI references for benchmarks/run.py: the same work tracepilot does in each workload, done the way a
 * JDI-based debugger does it, against benchmarks/java/BenchTarget.java. Prints "RESULT key value" lines.
 *
 *   java JdiBench attach  HOST PORT K           K attach/dispose cycles to an idle, running target
 *   java JdiBench count   HOST PORT LINE N      breakpoint with a count filter of N; time to the hit
 *   java JdiBench stack   HOST PORT LINE REPS   at each hit: all frames, every visible local, displayed
 *   java JdiBench inspect HOST PORT LINE REPS   at each hit: first 50 entries of "map" and the string "text"
 *   java JdiBench trace   HOST PORT LINE N      at the hit: MethodEntry listener on benchtrace.*, N calls
 */
public class JdiBench {
    static VirtualMachine attach(String host, String port) throws Exception {
        AttachingConnector socket = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) socket = c;
        }
        Map<String, Connector.Argument> cargs = socket.defaultArguments();
        cargs.get("hostname").setValue(host);
        cargs.get("port").setValue(port);
        return socket.attach(cargs);
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0], host = args[1], port = args[2];
        if (mode.equals("attach")) {
            // One attach to each JVM of the comma-separated ports (each started with suspend=y).
            for (String p : port.split(",")) {
                long t0 = System.nanoTime();
                VirtualMachine vm = attach(host, p);
                // Ready to set a breakpoint: version and capabilities known, request manager there.
                vm.version();
                vm.canWatchFieldModification();
                vm.eventRequestManager();
                long ns = System.nanoTime() - t0;
                System.out.println("RESULT attach_ms " + ns / 1e6);
                vm.dispose();
            }
            return;
        }
        int line = Integer.parseInt(args[3]);
        long n = Long.parseLong(args[4]);
        VirtualMachine vm = attach(host, port);
        ClassPrepareRequest cpr = vm.eventRequestManager().createClassPrepareRequest();
        cpr.addClassFilter("BenchTarget");
        cpr.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        cpr.enable();
        // A target started with suspend=y waits at VM start; the VMStart event set's resume() in the loop
        // below starts it. Resuming here as well would release the suspension of a ClassPrepare event
        // that arrived meanwhile, letting the loop run before its breakpoint is set.
        for (ReferenceType t : vm.classesByName("BenchTarget")) breakAt(vm, t, line, mode, n);
        long started = System.nanoTime();
        int reps = 0;
        List<Double> times = new ArrayList<>();
        while (true) {
            EventSet set = vm.eventQueue().remove();
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent cpe) {
                    breakAt(vm, cpe.referenceType(), line, mode, n);
                    started = System.nanoTime();
                } else if (e instanceof BreakpointEvent be) {
                    ThreadReference thread = be.thread();
                    switch (mode) {
                        case "count" -> {
                            double s = (System.nanoTime() - started) / 1e9;
                            System.out.println("RESULT count_s " + s);
                            vm.exit(0);
                            return;
                        }
                        case "stack" -> {
                            long t0 = System.nanoTime();
                            int shown = stack(thread);
                            times.add((System.nanoTime() - t0) / 1e6);
                            if (reps == 0) System.out.println("RESULT stack_frames " + shown);
                        }
                        case "inspect" -> {
                            long t0 = System.nanoTime();
                            inspect(thread);
                            times.add((System.nanoTime() - t0) / 1e6);
                        }
                        case "trace" -> {
                            trace(vm, set, n);
                            return;
                        }
                        default -> throw new IllegalArgumentException(mode);
                    }
                    if (++reps >= n) {
                        for (double t : times) System.out.println("RESULT " + mode + "_ms " + t);
                        vm.exit(0);
                        return;
                    }
                } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    System.out.println("RESULT error the target ended");
                    return;
                }
            }
            set.resume();
        }
    }

    static void breakAt(VirtualMachine vm, ReferenceType t, int line, String mode, long n) throws Exception {
        if (!vm.eventRequestManager().breakpointRequests().isEmpty()) return;
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(t.locationsOfLine(line).get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        if (mode.equals("count")) bp.addCountFilter((int) n);
        bp.enable();
    }

    /** What a debugger's stack view with variables shows: every frame, its visible locals, their text. */
    static int stack(ThreadReference thread) throws Exception {
        int shown = 0;
        StringBuilder out = new StringBuilder();
        for (StackFrame f : thread.frames()) {
            out.append(f.location().method().name()).append(':').append(f.location().lineNumber());
            try {
                List<LocalVariable> vars = f.visibleVariables();
                Map<LocalVariable, Value> values = f.getValues(vars);
                for (LocalVariable v : vars) out.append(v.name()).append('=').append(values.get(v));
                ObjectReference self = f.thisObject();
                if (self != null) out.append(self);
            } catch (com.sun.jdi.AbsentInformationException e) {
                // native or no debug info: the frame is shown without locals
            }
            shown++;
        }
        return shown + (out.length() > 0 ? 0 : 0);
    }

    /** The first page (50 entries) of a HashMap read from its fields, and a long string's text. */
    static void inspect(ThreadReference thread) throws Exception {
        StackFrame f = thread.frame(0);
        ObjectReference map = (ObjectReference) f.getValue(f.visibleVariableByName("map"));
        StringReference text = (StringReference) f.getValue(f.visibleVariableByName("text"));
        ReferenceType mapType = map.referenceType();
        Field tableField = mapType.fieldByName("table"), sizeField = mapType.fieldByName("size");
        Map<Field, Value> head = map.getValues(List.of(tableField, sizeField));
        ArrayReference table = (ArrayReference) head.get(tableField);
        StringBuilder out = new StringBuilder("size=" + head.get(sizeField));
        int found = 0, length = table.length();
        Field key = null, value = null, next = null, boxed = null;
        for (int start = 0; start < length && found < 50; start += 256) {
            for (Value slot : table.getValues(start, Math.min(256, length - start))) {
                ObjectReference node = (ObjectReference) slot;
                while (node != null && found < 50) {
                    if (key == null) {
                        ReferenceType nt = node.referenceType();
                        key = nt.fieldByName("key");
                        value = nt.fieldByName("value");
                        next = nt.fieldByName("next");
                    }
                    Map<Field, Value> kv = node.getValues(List.of(key, value, next));
                    ObjectReference v = (ObjectReference) kv.get(value);
                    if (boxed == null) boxed = v.referenceType().fieldByName("value");
                    out.append(((StringReference) kv.get(key)).value()).append('=')
                       .append(((IntegerValue) v.getValue(boxed)).value());
                    found++;
                    node = (ObjectReference) kv.get(next);
                }
                if (found >= 50) break;
            }
        }
        out.append(text.value().length());
    }

    /** A MethodEntry listener on benchtrace.* counting calls until n, without suspending the target. */
    static void trace(VirtualMachine vm, EventSet stopped, long n) throws Exception {
        MethodEntryRequest req = vm.eventRequestManager().createMethodEntryRequest();
        req.addClassFilter("benchtrace.*");
        req.setSuspendPolicy(EventRequest.SUSPEND_NONE);
        req.enable();
        long calls = 0, t0 = System.nanoTime();
        stopped.resume();
        while (calls < n) {
            EventSet set = vm.eventQueue().remove();
            for (Event e : set) {
                if (e instanceof MethodEntryEvent) calls++;
                else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    System.out.println("RESULT error the target ended after " + calls + " calls");
                    return;
                }
            }
            set.resume();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        req.disable();
        System.out.println("RESULT trace_calls " + calls);
        System.out.println("RESULT trace_s " + s);
        vm.dispose();
    }
}
