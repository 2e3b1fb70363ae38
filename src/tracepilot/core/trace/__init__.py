"""Method-call tracing (issue 32).

    tree.py     call trees per thread (aggregated by call path) and the answer built from them, for both paths
    folded.py   the folded stack format (`thread;a;b;c 123`) that flame graph tools read
    probe.py    the in-JVM trace probe: a class the target runs, counting calls and timing them
    inject.py   entry/exit calls into the probe inserted in the traced methods (no JDWP)
    in_jvm.py   the JDWP side of in-JVM tracing: instrument, read the counters, restore
    round_trip.py  the fallback: MethodEntry/MethodExit/Exception events with SuspendPolicy NONE
    runner.py   one trace call: not running / resume, the window, in the JVM or by round trip, the answer
"""
