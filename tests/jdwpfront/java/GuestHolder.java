import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import java.io.*;
import java.util.*;

/**
 * A JDI debugger that only holds threads, on command, while another debugger (the session) works on them: each
 * line on stdin is one command, each answer one line on stdout.
 *
 *   suspend NAME    ThreadReference.suspend           -> "HELD NAME count=N"
 *   resume NAME     ThreadReference.resume            -> "HELD NAME count=N"
 *   suspendall      VirtualMachine.suspend            -> "OK"
 *   resumeall       VirtualMachine.resume             -> "OK"
 *   look NAME       its suspend count and top line    -> "HELD NAME count=N line=L" (line -1: not suspended)
 *   leave           dispose                           -> "DETACHED"
 *
 * JDI keeps a suspended thread's frames until it resumes it: `look` at a thread only once another debugger has
 * moved it (the frames read are then the moved ones). A JDI call that fails prints "ERROR what"; it goes on.
 *
 * usage: GuestHolder PORT
 */
public class GuestHolder {
    public static void main(String[] args) throws Exception {
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(args[0]);
        VirtualMachine vm = connector.attach(arguments);
        say("ATTACHED " + vm.name());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            try {
                switch (words[0]) {
                    case "suspend" -> {
                        ThreadReference t = thread(vm, words[1]);
                        t.suspend();
                        say("HELD " + t.name() + " count=" + t.suspendCount());
                    }
                    case "resume" -> {
                        ThreadReference t = thread(vm, words[1]);
                        t.resume();
                        say("HELD " + t.name() + " count=" + t.suspendCount());
                    }
                    case "look" -> look(thread(vm, words[1]));
                    case "suspendall" -> {
                        vm.suspend();
                        say("OK");
                    }
                    case "resumeall" -> {
                        vm.resume();
                        say("OK");
                    }
                    case "leave" -> {
                        vm.dispose();
                        say("DETACHED");
                        return;
                    }
                    default -> say("ERROR unknown command " + line);
                }
            } catch (RuntimeException | IncompatibleThreadStateException e) {
                say("ERROR " + e);
            }
        }
    }

    static ThreadReference thread(VirtualMachine vm, String name) {
        return vm.allThreads().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    static void look(ThreadReference t) throws IncompatibleThreadStateException {
        int count = t.suspendCount();
        int line = count > 0 ? t.frame(0).location().lineNumber() : -1;
        say("HELD " + t.name() + " count=" + count + " line=" + line);
    }

    static void say(String text) {
        System.out.println(text);
        System.out.flush();
    }
}
