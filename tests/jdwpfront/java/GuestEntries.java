import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.util.*;

/**
 * A JDI debugger with a method breakpoint as IDEs make one (a MethodEntryRequest on a class, suspending all
 * threads) that resumes every event set: prints "ENTRIES n" and "GONE" when the VM is gone.
 *
 * usage: GuestEntries PORT CLASS
 */
public class GuestEntries {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(String.valueOf(port));
        VirtualMachine vm = connector.attach(arguments);
        MethodEntryRequest entries = vm.eventRequestManager().createMethodEntryRequest();
        entries.addClassFilter(args[1]);
        entries.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        entries.enable();
        System.out.println("ARMED");
        System.out.flush();
        int seen = 0;
        try {
            while (true) {
                EventSet set = vm.eventQueue().remove(30000);
                if (set == null) throw new IllegalStateException("no event within 30s after " + seen + " entries");
                for (Event e : set) {
                    if (e instanceof MethodEntryEvent) {
                        seen++;
                    } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                        System.out.println("ENTRIES " + seen);
                        System.out.println("GONE");
                        System.out.flush();
                        return;
                    }
                }
                set.resume();
            }
        } catch (VMDisconnectedException e) {
            System.out.println("ENTRIES " + seen);
            System.out.println("GONE");
            System.out.flush();
        }
    }
}
