import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.util.*;

/**
 * A JDI debugger that sets, three times over, a breakpoint that fires once (a count filter of 1, as an IDE's
 * "pass count") on a line running threads pass, and says whether its one event came: "HIT n thread" or
 * "MISSED n" (none within 10 s). The event can reach the session before the reply that names its request.
 *
 * usage: GuestFirstHit PORT CLASS LINE
 */
public class GuestFirstHit {
    public static void main(String[] args) throws Exception {
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(args[0]);
        VirtualMachine vm = connector.attach(arguments);
        Location at = vm.classesByName(args[1]).get(0).locationsOfLine(Integer.parseInt(args[2])).get(0);
        for (int n = 0; n < 3; n++) {
            BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at);
            bp.addCountFilter(1);
            bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
            bp.enable();
            BreakpointEvent hit = null;
            long until = System.currentTimeMillis() + 10_000;
            while (hit == null && System.currentTimeMillis() < until) {
                EventSet set = vm.eventQueue().remove(Math.max(1, until - System.currentTimeMillis()));
                if (set == null) break;
                for (Event e : set) if (e instanceof BreakpointEvent && e.request() == bp) hit = (BreakpointEvent) e;
                if (hit == null) {
                    System.out.println("OTHER " + n + " " + set);
                    set.resume();
                }
                else {
                    System.out.println("HIT " + n + " " + hit.thread().name());
                    vm.eventRequestManager().deleteEventRequest(bp);
                    set.resume();
                }
            }
            if (hit == null) {
                System.out.println("MISSED " + n);
                vm.eventRequestManager().deleteEventRequest(bp);
            }
            System.out.flush();
        }
        vm.dispose();
        System.out.println("DONE");
    }
}
