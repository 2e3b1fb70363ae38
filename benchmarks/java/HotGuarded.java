/**
 * Debuggee of benchmarks/bench_latency.py (10d on row 3b's loop): HotTarget's `hot` loop, the same main, with a
 * false `if (i < 0) hit(i);` written in Java on the hot line: the floor a compiled condition reaches there.
 *
 *   hot N      N iterations, then "hot_ns <nanoseconds>"
 */
public class HotGuarded {
    static long sink;

    public static void main(String[] args) {
        long n = Long.parseLong(args[1]);
        long sum = 0;
        long t0 = System.nanoTime();
        if (args[0].equals("hot")) {
            for (long i = 0; i < n; i++) {
                if (i < 0) hit(i);
                sum += (i * 31) ^ (i >>> 3);
            }
            System.out.println("hot_ns " + (System.nanoTime() - t0));
        } else if (args[0].equals("call")) {
            for (long i = 0; i < n; i++) {
                sum += step(i);
            }
            System.out.println("call_ns " + (System.nanoTime() - t0));
        } else {
            for (long i = 0; i < n; i++) {
                sum += i & 7;
            }
            System.out.println("log_ns " + (System.nanoTime() - t0));
        }
        sink = sum;
        System.out.println("sum " + sum);
    }

    static void hit(long i) {
        sink += i;
    }

    static long step(long i) {
        return (i * 31) ^ (i >>> 3);
    }
}
