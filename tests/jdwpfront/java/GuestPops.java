import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.io.*;
import java.util.*;

/**
 * A JDI debugger popping frames the way a person in an IDE does, many times: a suspend-all breakpoint on STEP_LINE
 * of CLASS (a method several threads call), and at each hit "drop frame" (StackFrame.pop of frame 0), resume.
 * After each pop the thread must stand at CALL_LINE, held (at least) as many times as before; every breakpoint event the
 * client gets must be its own, at STEP_LINE. Prints "DONE threads=N" after ROUNDS pops, waits for "leave" on
 * stdin, detaches. A pop or an event that does not come within 10 s prints "HUNG ..." and exits 2 (the JDWP
 * agent hangs on PopFrames while another popped thread is held in its pop code); a wrong state: "WRONG ...", 1.
 *
 * A thread named SKIP (optional) is not popped at its hits, only resumed: another debugger pops its frames.
 *
 * usage: GuestPops PORT CLASS STEP_LINE CALL_LINE ROUNDS [SKIP]
 */
public class GuestPops {
    static volatile long lastProgress = System.nanoTime();
    static volatile String doing = "attaching";

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String className = args[1];
        int stepLine = Integer.parseInt(args[2]);
        int callLine = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);
        String skip = args.length > 5 ? args[5] : null;
        Thread watchdog = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                if (System.nanoTime() - lastProgress > 10_000_000_000L) {
                    System.out.println("HUNG " + doing);
                    System.out.flush();
                    Runtime.getRuntime().halt(2);
                }
            }
        });
        watchdog.setDaemon(true);
        watchdog.start();
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(String.valueOf(port));
        VirtualMachine vm = connector.attach(arguments);
        ReferenceType type = vm.classesByName(className).get(0);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(type.locationsOfLine(stepLine).get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();
        Set<String> threads = new TreeSet<>();
        int popped = 0;
        int refusals = 0;
        while (popped < rounds) {
            doing = "waiting for a breakpoint event after " + popped + " pops";
            EventSet set = vm.eventQueue().remove(10000);
            if (set == null) {
                System.out.println("HUNG " + doing);
                System.out.flush();
                System.exit(2);
            }
            lastProgress = System.nanoTime();
            for (Event e : set) {
                if (!(e instanceof BreakpointEvent)) continue;
                BreakpointEvent hit = (BreakpointEvent) e;
                if (hit.request() != bp || hit.location().lineNumber() != stepLine) {
                    wrong("a breakpoint event not the client's: " + hit.location() + " request " + hit.request());
                }
                ThreadReference thread = hit.thread();
                if (thread.name().equals(skip)) continue;
                threads.add(thread.name());
                int held = thread.suspendCount();
                doing = "popping " + thread.name() + " (pop " + (popped + 1) + ")";
                try {
                    thread.popFrames(thread.frame(0));
                } catch (com.sun.jdi.InternalException refused) {
                    // JDWP error 113: tracepilot refuses a pop while another popped thread is kept from being parked
                    // for 5 s (by the session's pause or suspend-all stop): said, not hung, counted in "refused"
                    // (none is expected here: nothing else holds the threads). The thread stays where it stopped.
                    if (refused.errorCode() != 113) throw refused;
                    lastProgress = System.nanoTime();
                    refusals++;
                    continue;
                }
                lastProgress = System.nanoTime();
                popped++;
                Location top = thread.frame(0).location();
                if (top.lineNumber() != callLine) wrong(thread.name() + " popped to " + top + ", not line " + callLine);
                // (More, not fewer: another thread's suspend-all hit may have come meanwhile, as without the front end.)
                if (thread.suspendCount() < held) {
                    wrong(thread.name() + " held " + thread.suspendCount() + " times after the pop, " + held + " before");
                }
            }
            doing = "resuming after " + popped + " pops";
            set.resume();
        }
        vm.eventRequestManager().deleteEventRequest(bp);
        System.out.println("DONE refused=" + refusals + " threads=" + threads.size());
        System.out.flush();
        lastProgress = Long.MAX_VALUE / 2;  // (no watchdog while the test decides)
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String text;
        while ((text = in.readLine()) != null && !text.trim().equals("leave")) {
        }
        vm.dispose();
        System.out.println("DETACHED");
        System.out.flush();
    }

    static void wrong(String what) {
        System.out.println("WRONG " + what);
        System.out.flush();
        System.exit(1);
    }
}
