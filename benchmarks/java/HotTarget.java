/**
 * Debuggee of benchmarks/run.py's in-JVM rows: a tight loop in one method, timed by the target itself
 * (so JVM start-up and the debugger's set-up are not in the figure).
 *
 *   hot N      N iterations of a cheap line (the hottest line of the loop), then "hot_ns <nanoseconds>"
 *   log N      N iterations of a line a logpoint is set on, then "log_ns <nanoseconds>"
 *   call N     N calls of step(i), a method entry breakpoint's method, then "call_ns <nanoseconds>"
 */
public class HotTarget {
    static long sink;

    public static void main(String[] args) {
        long n = Long.parseLong(args[1]);
        long sum = 0;
        long t0 = System.nanoTime();
        if (args[0].equals("hot")) {
            for (long i = 0; i < n; i++) {
                sum += (i * 31) ^ (i >>> 3); // @bench:hot
            }
            System.out.println("hot_ns " + (System.nanoTime() - t0));
        } else if (args[0].equals("call")) {
            for (long i = 0; i < n; i++) {
                sum += step(i);
            }
            System.out.println("call_ns " + (System.nanoTime() - t0));
        } else {
            for (long i = 0; i < n; i++) {
                sum += i & 7; // @bench:logged
            }
            System.out.println("log_ns " + (System.nanoTime() - t0));
        }
        sink = sum;
        System.out.println("sum " + sum);
    }

    static long step(long i) {
        return (i * 31) ^ (i >>> 3);
    }
}
