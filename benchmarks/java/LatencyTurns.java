import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * Debuggee of benchmarks/bench_latency.py (10d, a compiled loop): LatencyTarget's loop as three methods of one
 * JVM, each compiled as a method (after warm-up calls) rather than on-stack in a loop that runs once:
 *
 *   plain(n)    the loop, no breakpoint on it
 *   probed(n)   the same loop; the benchmark sets its condition on the marked line
 *   guarded(n)  the same loop with a false `if (i < 0) hit(i);` written in Java: the floor a compiled test reaches
 *
 *   turns N ROUNDS   after warm-up, ROUNDS rounds of one timed call of each (N iterations, the loop thread's CPU
 *                    time), the order rotated every round; then per loop "NAME_best_ns <ns>" and
 *                    "NAME_ratio <median of its per-round time / plain's in the same round>"
 */
public class LatencyTurns {
    static long sink;
    static final String[] NAMES = {"plain", "probed", "guarded"};

    public static void main(String[] args) {
        long n = Long.parseLong(args[1]);
        int rounds = Integer.parseInt(args[2]);
        for (int w = 0; w < 20_000; w++) {
            sink += plain(1000) + probed(1000) + guarded(1000);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long[][] times = new long[3][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 3; k++) {
                int which = (r + k) % 3;
                long c0 = mx.getCurrentThreadCpuTime();
                sink += which == 0 ? plain(n) : which == 1 ? probed(n) : guarded(n);
                times[which][r] = mx.getCurrentThreadCpuTime() - c0;
            }
        }
        for (int k = 0; k < 3; k++) {
            long best = Long.MAX_VALUE;
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                best = Math.min(best, times[k][r]);
                ratios[r] = (double) times[k][r] / times[0][r];
            }
            java.util.Arrays.sort(ratios);
            System.out.println(NAMES[k] + "_best_ns " + best);
            System.out.println(NAMES[k] + "_ratio " + ratios[rounds / 2]);
        }
        System.out.println("sum " + sink);
    }

    static long plain(long n) {
        long sum = 0;
        for (long i = 0; i < n; i++) {
            sum += (i * 31) ^ (i >>> 3);
        }
        return sum;
    }

    static long probed(long n) {
        long sum = 0;
        for (long i = 0; i < n; i++) {
            sum += (i * 31) ^ (i >>> 3); // @latency:turns
        }
        return sum;
    }

    static long guarded(long n) {
        long sum = 0;
        for (long i = 0; i < n; i++) {
            if (i < 0) hit(i);
            sum += (i * 31) ^ (i >>> 3);
        }
        return sum;
    }

    static void hit(long i) {
        sink += i;
    }
}
