"""Classes an earlier debugger session left instrumented: found and restored when a session attaches.

A session that detaches restores its classes itself; one that is killed (SIGKILL, a crash, an MCP client
restarting its server) cannot. Its probe calls then stay in the program (cheap: a hit() with no breakpoint
behind it, and a logpoint's buffer is bounded), and the next session would debug code it did not write.

Each probe carries what restoring needs (probe.LEFTOVER_FIELDS, set when it is defined): the instrumented
class's name, its original bytes and a time stamp; several probes of one class carry the same bytes, the
newest wins (a hot swap since gives newer original bytes). A class is restored only while its current code
still calls a probe (its methods' bytecodes, read through the class's constant pool): a class restored
already, or replaced since by a hot swap, is left as it is.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Any

from ...jdwp import (
    ArrayReference,
    JdwpError,
    ReferenceType,
    StringReference,
    VirtualMachine,
    VMDisconnected,
)
from ...jdwp import Method as JdwpMethod
from ..errors import DebuggerError
from .byte_array import byte_array
from .bytecode import INVOKESTATIC, decode
from .classfile import ByteReader, ConstantPool
from .naming import is_probe_class
from .probe import LEFTOVER_FIELDS

log = logging.getLogger(__name__)

MANY_FIELDS = ("TARGETS", "ORIGINALS", "STAMP")


@dataclass
class Leftover:
    target: str  # internal name of the instrumented class
    loader: int
    original: int  # the byte[] holding its original class file
    stamp: int


async def find_leftovers(vm: Any) -> list[Leftover]:
    """The newest record per (class, loader) among the loaded probes. Called at (re)connect, when this
    session has no class of its own instrumented: a probe of its own (a connection that broke) counts too."""
    newest: dict[tuple[str, int], Leftover] = {}
    listing = (await vm.send(VirtualMachine.AllClasses)).classes
    try:
        await _scan(vm, listing, newest)
    finally:  # the listing's references given back (Vm.all_classes says why): nothing here keeps a class ID
        with contextlib.suppress(JdwpError, VMDisconnected):
            await vm.send(VirtualMachine.DisposeObjects, [(c.type_id, 1) for c in listing])
    return list(newest.values())


async def _scan(vm: Any, listing: list[Any], newest: dict[tuple[str, int], Leftover]) -> None:
    for c in listing:
        if not is_probe_class(c.signature):
            continue
        try:
            fields = {f.name: f.field_id for f in (await vm.send(ReferenceType.Fields, c.type_id)).declared}
            if all(name in fields for name in MANY_FIELDS):
                for left in await _many(vm, c.type_id, fields):
                    key = (left.target, left.loader)
                    if key not in newest or newest[key].stamp < left.stamp:
                        newest[key] = left
                continue
            if any(name not in fields for name, _ in LEFTOVER_FIELDS):
                continue  # an older tracepilot's probe: it carries nothing to restore from
            target, original, stamp = (await vm.send(ReferenceType.GetValues, c.type_id,
                                                     [fields[name] for name, _ in LEFTOVER_FIELDS])).values
            if not target.value or not original.value:
                continue  # its session died while defining it
            loader = (await vm.send(ReferenceType.ClassLoader, c.type_id)).class_loader
            name = (await vm.send(StringReference.Value, target.value)).string_value
        except JdwpError:
            continue
        key = (name, loader)
        if key not in newest or newest[key].stamp < stamp.value:
            newest[key] = Leftover(name, loader, original.value, stamp.value)


async def _many(vm: Any, type_id: int, fields: dict[str, int]) -> list[Leftover]:
    """A probe that carries several classes (a trace's marker, core/trace/probe_cache.py): TARGETS, a
    String[] of internal names, ORIGINALS, a byte[][] of their class files (null where not found), STAMP."""
    targets, originals, stamp = (await vm.send(ReferenceType.GetValues, type_id,
                                               [fields[name] for name in MANY_FIELDS])).values
    if not targets.value or not originals.value:
        return []  # restored by its session, or it died while reading them
    loader = (await vm.send(ReferenceType.ClassLoader, type_id)).class_loader
    length = (await vm.send(ArrayReference.Length, targets.value)).array_length
    names = (await vm.send(ArrayReference.GetValues, targets.value, 0, length)).values
    arrays = (await vm.send(ArrayReference.GetValues, originals.value, 0, length)).values
    out = []
    for name, array in zip(names, arrays, strict=True):
        if name.value and array.value:
            text = (await vm.send(StringReference.Value, name.value)).string_value
            out.append(Leftover(text, loader, array.value, stamp.value))
    return out


async def calls_a_probe(vm: Any, type_id: int) -> bool:
    """Does the class's current code call a probe (an inserted call still in place)?"""
    reply = await vm.send(ReferenceType.ConstantPool, type_id)
    pool = ConstantPool.read(ByteReader(reply.count.to_bytes(2, "big") + bytes(reply.bytes)))
    for method in (await vm.send(ReferenceType.Methods, type_id)).declared:
        code = (await vm.send(JdwpMethod.Bytecodes, type_id, method.method_id)).bytecodes
        for ins in decode(bytes(code)) if code else ():
            if ins.opcode == INVOKESTATIC:
                index = int.from_bytes(code[ins.offset + 1:ins.offset + 3], "big")
                with contextlib.suppress(Exception):
                    if is_probe_class(pool.member_ref(index)[0]):
                        return True
    return False


async def restore_leftovers(vm: Any) -> list[str]:
    """Restore every class a dead session left instrumented; the names of those restored."""
    if not vm.capabilities.get("can_redefine_classes") or not vm.capabilities.get("can_get_constant_pool"):
        return []
    restored = []
    for left in await find_leftovers(vm):
        try:
            types = (await vm.send(VirtualMachine.ClassesBySignature, f"L{left.target};")).classes
            for t in types:
                if (await vm.send(ReferenceType.ClassLoader, t.type_id)).class_loader != left.loader:
                    continue
                if not await calls_a_probe(vm, t.type_id):
                    continue
                length = (await vm.send(ArrayReference.Length, left.original)).array_length
                original = await byte_array(vm.conn, left.original, length)
                await vm.send(VirtualMachine.RedefineClasses, [(t.type_id, original)])
                vm.forget(t.type_id)
                restored.append(left.target.replace("/", "."))
        except (JdwpError, DebuggerError, ValueError) as exc:
            log.warning("could not restore %s, left instrumented by an earlier session: %s", left.target, exc)
    return restored
