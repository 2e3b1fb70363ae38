import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Debuggee of benchmarks/bench_latency.py: HotTarget's tight loop, timed by the target itself in the loop
 * thread's CPU time as well as in wall time (on a machine shared with other work, CPU time is what the
 * loop itself cost).
 *
 *   hot N      N iterations of a cheap line, then "hot_ns <wall ns>" and "hot_cpu_ns <cpu ns>"
 *   guarded N  the same loop with a false `if (i < 0) hit(i);` written in Java on that line: the floor an
 *              in-JVM condition (a compiled test and a branch on the line) can reach on this ~1 ns loop
 */
public class LatencyTarget {
    static long sink;

    public static void main(String[] args) {
        long n = Long.parseLong(args[1]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        long c0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        if (args[0].equals("guarded")) {
            for (long i = 0; i < n; i++) {
                if (i < 0) hit(i);
                sum += (i * 31) ^ (i >>> 3);
            }
        } else {
            for (long i = 0; i < n; i++) {
                sum += (i * 31) ^ (i >>> 3); // @latency:hot
            }
        }
        long wall = System.nanoTime() - t0;
        long cpu = mx.getCurrentThreadCpuTime() - c0;
        System.out.println("hot_ns " + wall);
        System.out.println("hot_cpu_ns " + cpu);
        sink = sum;
        System.out.println("sum " + sum);
    }

    static void hit(long i) {
        sink += i;
    }
}
