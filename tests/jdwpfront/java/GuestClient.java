import com.sun.jdi.*;
import com.sun.jdi.connect.*;
import com.sun.jdi.event.*;
import com.sun.jdi.request.*;
import java.io.*;
import java.util.*;

/**
 * A JDI debugger, as IntelliJ and Eclipse are built: attaches to the JDWP front end, stops at a breakpoint in
 * thread "alpha", reads frames and locals, waits for "go" on stdin (the agent looks meanwhile), invokes a method,
 * sets a value, steps, and detaches. Every finding is one line on stdout: "KEY value".
 *
 * usage: GuestClient PORT LINE [CLASSFILE: hot-swap fixtures.JdwpGuest with it]
 */
public class GuestClient {
    static final BufferedReader IN = new BufferedReader(new InputStreamReader(System.in));

    static void say(String key, Object value) {
        System.out.println(key + " " + value);
        System.out.flush();
    }

    static void await(String word) throws IOException {
        say("WAITING", word);
        String line;
        while ((line = IN.readLine()) != null && !line.trim().equals(word)) {
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int line = Integer.parseInt(args[1]);
        AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = connector.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(String.valueOf(port));
        VirtualMachine vm = connector.attach(arguments);
        say("ATTACHED", vm.name());
        say("PROBE_CLASSES", vm.allClasses().stream().filter(c -> c.name().contains("TracepilotProbe")).count());

        ReferenceType guest = vm.classesByName("fixtures.JdwpGuest").get(0);
        say("PROBE_VISIBLE", guest.classLoader().visibleClasses().stream()
                .filter(c -> c.name().contains("TracepilotProbe")).count());
        ThreadReference alpha = vm.allThreads().stream().filter(t -> t.name().equals("alpha")).findFirst().orElseThrow();
        Location at = guest.locationsOfLine(line).get(0);
        BreakpointRequest bp = vm.eventRequestManager().createBreakpointRequest(at);
        bp.addThreadFilter(alpha);
        bp.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        bp.enable();

        BreakpointEvent hit = null;
        EventSet stopSet = null;
        while (hit == null) {
            stopSet = vm.eventQueue().remove(20000);
            if (stopSet == null) throw new IllegalStateException("no breakpoint event within 20s");
            for (Event e : stopSet) if (e instanceof BreakpointEvent) hit = (BreakpointEvent) e;
        }
        ThreadReference thread = hit.thread();
        say("STOPPED", thread.name() + ":" + hit.location().lineNumber());
        StackFrame frame = thread.frame(0);
        say("FRAMES", thread.frameCount());
        say("FRAME1", thread.frame(1).location().method().name());
        say("WHO", frame.getValue(frame.visibleVariableByName("who")));
        say("LABEL", frame.getValue(frame.visibleVariableByName("label")));
        ArrayReference counts = (ArrayReference) frame.getValue(frame.visibleVariableByName("counts"));
        say("COUNTS", counts.getValues());
        ObjectReference basket = (ObjectReference) frame.getValue(frame.visibleVariableByName("basket"));
        ReferenceType basketType = basket.referenceType();
        say("OWNER", basket.getValue(basketType.fieldByName("owner")));
        ArrayReference items = (ArrayReference) basket.getValue(basketType.fieldByName("items"));
        ObjectReference pear = (ObjectReference) items.getValue(1);
        say("ITEM1", pear.getValue(pear.referenceType().fieldByName("name")));
        ObjectReference favourite = (ObjectReference) basket.getValue(basketType.fieldByName("favourite"));
        say("FAVOURITE_CENTS", favourite.getValue(favourite.referenceType().fieldByName("cents")));

        await("go");  // the agent looks at this stop meanwhile

        frame = thread.frame(0);
        basket = (ObjectReference) frame.getValue(frame.visibleVariableByName("basket"));
        Method total = basketType.methodsByName("total").get(0);
        try {
            Value sum = basket.invokeMethod(thread, total, List.of(), ObjectReference.INVOKE_SINGLE_THREADED);
            say("INVOKE", sum);
        } catch (Exception e) {
            say("INVOKE_REFUSED", e.getClass().getSimpleName());
        }
        frame = thread.frame(0);
        try {
            frame.setValue(frame.visibleVariableByName("label"), vm.mirrorOf("changed"));
            say("SET", thread.frame(0).getValue(thread.frame(0).visibleVariableByName("label")));
        } catch (Exception e) {
            say("SET_REFUSED", e.getClass().getSimpleName());
        }

        if (args.length > 2) {
            try {
                vm.redefineClasses(Map.of(guest, java.nio.file.Files.readAllBytes(java.nio.file.Path.of(args[2]))));
                say("REDEFINED", "ok");
            } catch (Exception e) {
                say("REDEFINE_REFUSED", e.getClass().getSimpleName());
            }
        }

        bp.disable();
        StepRequest step = vm.eventRequestManager().createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
        step.addCountFilter(1);
        step.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        step.enable();
        stopSet.resume();
        StepEvent stepped = null;
        while (stepped == null) {
            EventSet set = vm.eventQueue().remove(20000);
            if (set == null) throw new IllegalStateException("no step event within 20s");
            for (Event e : set) if (e instanceof StepEvent) { stepped = (StepEvent) e; stopSet = set; }
        }
        say("STEPPED", stepped.location().lineNumber());
        frame = thread.frame(0);
        say("TOTAL", frame.getValue(frame.visibleVariableByName("total")));
        vm.eventRequestManager().deleteEventRequest(step);

        await("leave");
        stopSet.resume();
        vm.dispose();
        say("DETACHED", "ok");
    }
}
