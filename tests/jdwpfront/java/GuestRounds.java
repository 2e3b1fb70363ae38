import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.io.*;
import java.util.*;

/**
 * A JDI debugger with a suspend-all breakpoint on one line, for every thread: prints "HIT thread" for each hit
 * and resumes, until it has seen HITS hits; then clears it, says DONE, waits for "leave" on stdin, detaches.
 * (Hits that were on their way when it cleared the breakpoint are resumed too, printed as "LATE thread".)
 *
 * usage: GuestRounds PORT LINE HITS
 */
public class GuestRounds {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int line = Integer.parseInt(args[1]);
        int hits = Integer.parseInt(args[2]);
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(String.valueOf(port));
        VirtualMachine vm = connector.attach(arguments);
        ReferenceType guest = vm.classesByName("fixtures.JdwpGuest").get(0);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(guest.locationsOfLine(line).get(0));
        bp.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        bp.enable();
        System.out.println("ARMED");
        System.out.flush();
        int seen = 0;
        while (seen < hits) {
            EventSet set = vm.eventQueue().remove(30000);
            if (set == null) throw new IllegalStateException("no event within 30s after " + seen + " hits");
            for (Event e : set) {
                if (e instanceof BreakpointEvent) {
                    seen++;
                    System.out.println("HIT " + ((BreakpointEvent) e).thread().name());
                    System.out.flush();
                }
            }
            set.resume();
        }
        vm.eventRequestManager().deleteEventRequest(bp);
        // An event set already on its way when the request went (another thread's hit) still holds its threads:
        // resumed as an IDE does, or every thread would stay suspended by this client until it detaches.
        Thread drain = new Thread(() -> {
            try {
                while (true) {
                    EventSet late = vm.eventQueue().remove();
                    for (Event e : late) {
                        if (e instanceof BreakpointEvent) {
                            System.out.println("LATE " + ((BreakpointEvent) e).thread().name());
                            System.out.flush();
                        }
                    }
                    late.resume();
                }
            } catch (InterruptedException | VMDisconnectedException ignored) {
            }
        }, "drain");
        drain.setDaemon(true);
        drain.start();
        System.out.println("DONE");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String text;
        while ((text = in.readLine()) != null && !text.trim().equals("leave")) {
        }
        vm.dispose();
        System.out.println("DETACHED");
        System.out.flush();
    }
}
