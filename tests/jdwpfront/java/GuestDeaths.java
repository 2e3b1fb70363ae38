import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.util.*;

/**
 * A JDI debugger that watches threads end (a ThreadDeathRequest with the given suspend policy, as IDEs and jdb
 * make one) and resumes every event set, as they do: prints "DEATH name" for each, "GONE" when the VM is.
 *
 * usage: GuestDeaths PORT all|thread
 */
public class GuestDeaths {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(String.valueOf(port));
        VirtualMachine vm = connector.attach(arguments);
        ThreadDeathRequest deaths = vm.eventRequestManager().createThreadDeathRequest();
        deaths.setSuspendPolicy(args[1].equals("all") ? EventRequest.SUSPEND_ALL : EventRequest.SUSPEND_EVENT_THREAD);
        deaths.enable();
        System.out.println("ARMED");
        System.out.flush();
        try {
            while (true) {
                EventSet set = vm.eventQueue().remove(30000);
                if (set == null) throw new IllegalStateException("no event within 30s");
                for (Event e : set) {
                    if (e instanceof ThreadDeathEvent) {
                        System.out.println("DEATH " + ((ThreadDeathEvent) e).thread().name());
                        System.out.flush();
                    } else if (e instanceof VMDeathEvent || e instanceof VMDisconnectEvent) {
                        System.out.println("GONE");
                        System.out.flush();
                        return;
                    }
                }
                set.resume();
            }
        } catch (VMDisconnectedException e) {
            System.out.println("GONE");
            System.out.flush();
        }
    }
}
