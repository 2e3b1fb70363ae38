import java.util.HashMap;
import java.util.Map;

/**
 * Debuggee of benchmarks/run.py and benchmarks/jdi/JdiBench.java. One mode per workload; the lines the
 * debuggers break at carry a "// @bench:NAME" marker (run.py finds them, nothing hard-codes a number).
 *
 *   idle            sleep (attach workload)
 *   loop            hit one line forever (resume -> breakpoint -> stop round trip)
 *   count N         hit one line N times, then print "done"
 *   stack DEPTH     recurse DEPTH frames (4 locals each) and hit a line at the bottom, forever
 *   inspect         a 10,000-entry HashMap and a 100,000-char String in locals at a line hit forever
 *   trace N         N calls into package benchtrace untraced (baseline, printed), then a line to start
 *                   a trace at, then 30 rounds of N traced calls (the first's and the best's time printed)
 */
public class BenchTarget {
    static long sink;

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "idle" -> Thread.sleep(3_600_000L);
            case "loop" -> {
                for (long i = 0; ; i++) {
                    sink += i; // @bench:loop
                }
            }
            case "count" -> {
                int n = Integer.parseInt(args[1]);
                for (int i = 0; i < n; i++) {
                    sink += i; // @bench:count
                }
                System.out.println("done " + sink);
            }
            case "stack" -> {
                int depth = Integer.parseInt(args[1]);
                while (true) {
                    sink += recurse(depth, depth, "frame");
                }
            }
            case "inspect" -> {
                Map<String, Integer> map = new HashMap<>();
                for (int i = 0; i < 10_000; i++) {
                    map.put("key-" + i, i);
                }
                String text = "x".repeat(100_000);
                while (true) {
                    sink += map.size() + text.length(); // @bench:inspect
                }
            }
            case "trace" -> {
                int n = Integer.parseInt(args[1]);
                long best = Long.MAX_VALUE;
                for (int round = 0; round < 5; round++) {
                    long t0 = System.nanoTime();
                    sink += benchtrace.Traced.run(n);
                    best = Math.min(best, System.nanoTime() - t0);
                }
                System.out.println("baseline_ns " + best);
                traceStart(); // @bench:trace-start
                long first = 0, traced = Long.MAX_VALUE;
                for (int round = 0; round < TRACED_ROUNDS; round++) {  // the same rounds, traced: best and first
                    long t0 = System.nanoTime();
                    sink += benchtrace.Traced.run(n);
                    long t = System.nanoTime() - t0;
                    first = round == 0 ? t : first;
                    traced = Math.min(traced, t);
                }
                System.out.println("traced_first_ns " + first);
                System.out.println("traced_ns " + traced); // @bench:trace-end
                Thread.sleep(3_600_000L);
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    static final int TRACED_ROUNDS = 30;

    static void traceStart() {
        sink++;
    }

    static long recurse(int depth, int total, String label) {
        long acc = depth * 31L;
        double ratio = depth / (double) total;
        Object self = label;
        if (depth == 0) {
            return acc + (long) ratio + self.hashCode(); // @bench:stack
        }
        return recurse(depth - 1, total, label) + acc;
    }
}
