"""Inspection pieces behind `Inspector`: values, handles, threads, stacks, locks, heap, watchers, marks,
tracing, hot-swap and source views. Each module has one job and talks JDWP through `Vm`."""
