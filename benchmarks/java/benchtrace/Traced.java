package benchtrace;

/** The traced package of the trace workload: run(n) makes n calls to one small method. */
public class Traced {
    static int step(int x) {
        return x * 31 + 7;
    }

    public static long run(int n) {
        long acc = 0;
        for (int i = 1; i < n; i++) {  // run() itself is the n-th call
            acc += step(i);
        }
        return acc;
    }
}
