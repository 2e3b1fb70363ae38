"""In-JVM conditions and logpoints: compiled to bytecode and run inside the target (issue 19).

    classfile.py  read/write class files byte for byte (constant pool, members, Code and its tables)
    bytecode.py   instruction lengths and branch operands
    insert.py     insert straight-line code at a line, shifting branches, switches, tables, stack map frames
    shapes.py     what the condition compiler works on: class and member shapes, the site, captures, typed nodes
    compile.py    type a condition (the evaluator's AST) with Java's rules (the checker)
    emit.py       write the typed condition as bytecode
    assemble.py   a small assembler with labels, and the writer of the probe class
    probe.py      the probe class (check/hit/error/handover) and the call inserted in the user's method
    plan.py       class bytes + breakpoints -> instrumented bytes + probe classes (no JDWP)
    resolve.py    class shapes for the compiler: from the target over JDWP, or from class files
    jvm.py        the JDWP side: define the probe, redefine the class, answer the probe's events, restore
    naming.py     probe class names: unique per session, one suffix that steps and class lists exclude
    skip.py       the probe's skip slots over JDWP (a stopped thread's re-run call returns at once)
    pops.py       PopFrames at a probe stop or pop_frames, then the thread parked on a one-shot breakpoint (agent hang)
    swap.py       hot swap of an instrumented class: the new bytes get the probe calls too
    leftovers.py  at attach: restore classes an earlier, dead session left instrumented
"""
