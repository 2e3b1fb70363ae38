import com.sun.jdi.Bootstrap;
import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import java.util.Map;

/**
 * JDI reference for benchmarks/bench_condition.py: a breakpoint whose condition "i == N" on a local is
 * evaluated by the debugger on every hit (false N times, then true), the way a JDI-based IDE does it:
 * frame(0), getValue(local), resume the event set.
 *
 * Usage: java ConditionBench HOST PORT LINE N   (the target is ConditionTarget, suspended at start)
 */
public class ConditionBench {
    public static void main(String[] args) throws Exception {
        String host = args[0], port = args[1];
        int line = Integer.parseInt(args[2]);
        int n = Integer.parseInt(args[3]);
        AttachingConnector socket = null;
        for (AttachingConnector c : Bootstrap.virtualMachineManager().attachingConnectors()) {
            if (c.name().equals("com.sun.jdi.SocketAttach")) socket = c;
        }
        Map<String, Connector.Argument> cargs = socket.defaultArguments();
        cargs.get("hostname").setValue(host);
        cargs.get("port").setValue(port);
        VirtualMachine vm = socket.attach(cargs);
        ClassPrepareRequest cpr = vm.eventRequestManager().createClassPrepareRequest();
        cpr.addClassFilter("ConditionTarget");
        cpr.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        cpr.enable();
        // No vm.resume() here: the VMStart event set (suspend all) is resumed by the loop below, once,
        // so the class prepare event cannot be overtaken by an extra resume. A class loaded already
        // gets its breakpoint here.
        for (ReferenceType t : vm.classesByName("ConditionTarget")) setBreakpoint(vm, t, line);
        long start = 0;
        int hits = 0;
        LocalVariable var = null;
        while (true) {
            EventSet set = vm.eventQueue().remove();
            boolean resume = true;
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent cpe) {
                    setBreakpoint(vm, cpe.referenceType(), line);
                } else if (e instanceof BreakpointEvent be) {
                    if (hits == 0) start = System.nanoTime();
                    hits++;
                    StackFrame f = be.thread().frame(0);
                    if (var == null) var = f.visibleVariableByName("i");
                    int i = ((IntegerValue) f.getValue(var)).value();
                    if (i == n) {
                        long ns = System.nanoTime() - start;
                        System.out.printf("JDI: %d hits in %.3f s = %.0f hits/s%n", hits, ns / 1e9, hits / (ns / 1e9));
                        vm.exit(0);
                        return;
                    }
                } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                    System.out.println("JDI: the target ended before the condition was true (" + hits + " hits, event " + e + ")");
                    return;
                }
            }
            if (resume) set.resume();
        }
    }

    static void setBreakpoint(VirtualMachine vm, ReferenceType t, int line) throws Exception {
        if (!vm.eventRequestManager().breakpointRequests().isEmpty()) return;
        Location loc = t.locationsOfLine(line).get(0);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(loc);
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();
    }
}

class ConditionTarget {
    static long sink;

    public static void main(String[] args) {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i <= n; i++) {
            sink += i; // @bench:hit
        }
        System.out.println("done " + sink);
    }
}
