import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import java.util.*;

/**
 * A JDI debugger that only looks: attaches, reads the string in local LOCAL's field FIELD in the top frame of
 * thread THREAD (suspended already, by the agent), prints "VALUE text" and detaches.
 *
 * usage: GuestRead PORT THREAD LOCAL FIELD [exit: then try to end the JVM instead of detaching]
 */
public class GuestRead {
    public static void main(String[] args) throws Exception {
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(args[0]);
        VirtualMachine vm = connector.attach(arguments);
        ThreadReference thread = vm.allThreads().stream().filter(t -> t.name().equals(args[1])).findFirst().orElseThrow();
        StackFrame frame = thread.frame(0);
        ObjectReference holder = (ObjectReference) frame.getValue(frame.visibleVariableByName(args[2]));
        StringReference text = (StringReference) holder.getValue(holder.referenceType().fieldByName(args[3]));
        System.out.println("VALUE " + text.value());
        System.out.flush();
        if (args.length > 4 && args[4].equals("exit")) {
            try {
                vm.exit(3);
                System.out.println("EXIT sent");
            } catch (Exception e) {
                System.out.println("EXIT refused " + e.getClass().getSimpleName());
            }
            return;
        }
        vm.dispose();
    }
}
