"""When may a class be redefined without leaving a frame on obsolete code?

A frame that is running a method when its class is redefined with a different body keeps running the old
body: an *obsolete* method, which JDWP reports with method id 0, without line or variable tables, where no
breakpoint can reach it. The debugger must never make one needlessly: a class is redefined only when no
thread can be inside a method whose code the redefinition changes (every thread suspended, none with a
frame there). Methods whose code stays byte for byte the same are not obsolete after it (the JVM treats
them as the same method), so only the changed ones matter.
"""

from __future__ import annotations

from typing import Any

from ...jdwp import JdwpError, ThreadReference, VirtualMachine
from . import bytecode as bc
from . import classfile as cf_tags
from .classfile import ClassFile, ClassFormatError, ConstantPool

__all__ = ["changed_methods", "thread_inside"]


def _bodies(data: bytes) -> tuple[ClassFile, dict[str, Any]]:
    """The class and each method (name + descriptor) with its code."""
    cf = ClassFile.parse_shared(data)
    return cf, {cf.member_name(m) + cf.member_descriptor(m): m.code for m in cf.methods}


def _same_method(cf_a: ClassFile, a: Any, cf_b: ClassFile, b: Any) -> bool:
    """Two versions whose code is byte for byte the same but whose constant pool entry at an index differs (a
    probe class of another name at a line whose probe was replaced) are different methods to the JVM, and a
    frame running one is left obsolete: the entries the code names are compared too (decoded only then)."""
    if a is None or b is None:
        return a is None and b is None
    if a.code != b.code:
        return False
    shorter, longer = sorted((cf_a.pool.entries, cf_b.pool.entries), key=len)
    if longer[:len(shorter)] == shorter:
        return True  # (one pool extends the other, as instrumenting does: the same indices, the same entries)
    return _referred(cf_a.pool, a.code) == _referred(cf_b.pool, b.code)


def _referred(pool: ConstantPool, code: bytes) -> tuple[Any, ...]:
    """The constant pool entries the code's instructions name, in order, resolved down to their text."""
    out = []
    for ins in bc.decode(code):
        if ins.opcode == bc.LDC:
            out.append(_resolved(pool, code[ins.offset + 1]))
        elif ins.opcode in _POOL_OPERAND:
            out.append(_resolved(pool, int.from_bytes(code[ins.offset + 1:ins.offset + 3], "big")))
    return tuple(out)


def _resolved(pool: ConstantPool, index: int) -> Any:
    entry = pool.entries[index] if 0 < index < len(pool) else None
    if entry is None:
        return None
    tag, raw = entry
    if tag in _ONE_REF:
        return tag, _resolved(pool, int.from_bytes(raw[0:2], "big"))
    if tag in _TWO_REFS:
        return tag, _resolved(pool, int.from_bytes(raw[0:2], "big")), _resolved(pool, int.from_bytes(raw[2:4], "big"))
    if tag == cf_tags.METHOD_HANDLE:
        return tag, raw[0], _resolved(pool, int.from_bytes(raw[1:3], "big"))
    if tag in (cf_tags.DYNAMIC, cf_tags.INVOKE_DYNAMIC):  # (its bootstrap method by index: the same attribute)
        return tag, raw[0:2], _resolved(pool, int.from_bytes(raw[2:4], "big"))
    return tag, raw  # Utf8 and numbers: their bytes


_POOL_OPERAND = frozenset([bc.LDC_W, bc.LDC2_W, *range(bc.GETSTATIC, bc.INVOKEDYNAMIC + 1), bc.NEW, bc.ANEWARRAY,
                           bc.CHECKCAST, bc.INSTANCEOF, bc.MULTIANEWARRAY])
_ONE_REF = frozenset([cf_tags.CLASS, cf_tags.STRING, cf_tags.METHOD_TYPE, cf_tags.MODULE, cf_tags.PACKAGE])
_TWO_REFS = frozenset([cf_tags.FIELDREF, cf_tags.METHODREF, cf_tags.INTERFACE_METHODREF, cf_tags.NAME_AND_TYPE])


def changed_methods(old: bytes, new: bytes) -> set[str] | None:
    """Name + descriptor of every method whose code differs between the two versions; None when either
    version cannot be read (then every method counts as changed)."""
    try:
        (cf_before, before), (cf_after, after) = _bodies(old), _bodies(new)
        return {name for name in before.keys() | after.keys()
                if name not in before or name not in after
                or not _same_method(cf_before, before[name], cf_after, after[name])}
    except (ClassFormatError, ValueError):  # (ValueError: an opcode the decoder does not know)
        return None


async def thread_inside(vm: Any, type_id: int, methods: set[str] | None, *, only: set[int] | None = None) -> bool:
    """Might a thread be inside one of `methods` of the class (all of them when None)? A thread that is not
    suspended might be anywhere. `only`: these (suspended) threads alone. A frame already on obsolete code
    (method id 0) is not made worse."""
    names = {m.id: m.name + m.signature for m in await vm.methods(type_id)}
    threads = (await vm.send(VirtualMachine.AllThreads)).threads if only is None else sorted(only)
    for thread in threads:
        try:
            frames = (await vm.send(ThreadReference.Frames, thread, 0, -1)).frames
        except JdwpError:
            if only is not None:
                continue  # (ended meanwhile)
            return True  # running (not suspended), or ended meanwhile: it could be anywhere
        for frame in frames:
            loc = frame.location
            if loc.class_id != type_id or not loc.method_id:
                continue
            if methods is None or names.get(loc.method_id, "") in methods or loc.method_id not in names:
                return True
    return False
