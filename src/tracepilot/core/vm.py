"""Typed, cached access to one VM over a JDWP connection.

Class, method, field, line and variable tables never change for a loaded class, so they are fetched
once and kept, keyed by type id; `forget()` drops a class on unload or redefinition. Names are Java's
("com.acme.Foo", "int[]"), not JNI signatures, everywhere above this module.
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from ..jdwp import (
    ClassType,
    JdwpConnection,
    JdwpError,
    Location,
    Method,
    Modifier,
    ReferenceType,
    ThreadReference,
    TypeTag,
    VirtualMachine,
)
from ..jdwp.errors import AbsentInformation, ErrorCode
from .evaluator.types import java_name_to_signature, parse_method_signature, signature_to_java_name
from .instrument.naming import is_probe_class
from .model import CodeLocation


@dataclass
class VariableSlot:
    name: str
    signature: str
    slot: int
    start: int  # code index where the variable becomes valid
    length: int
    is_argument: bool

    @functools.cached_property
    def type_name(self) -> str:  # asked at every conditional-breakpoint hit: computed once
        return signature_to_java_name(self.signature)

    def live_at(self, index: int) -> bool:
        return self.start <= index < self.start + self.length


OBSOLETE_METHOD_ID = 0  # what JDWP reports for a frame's method that a redefinition replaced
REPLACED_IDS = 1 << 62  # our ids for replaced method versions we know (never a JVM's method id)
OBSOLETE_NAME = "<obsolete>"  # JDI's name for it


def obsolete_method(type_id: int) -> MethodInfo:
    """A frame's method replaced by a redefinition: JDWP knows neither its name nor its tables any more.
    What can still be read: the class, the code index, `this` and the class's fields and statics."""
    return MethodInfo(type_id, OBSOLETE_METHOD_ID, OBSOLETE_NAME, "", 0, lines=[], variables=[],
                      has_variable_table=False, obsolete=True)



# The flags as plain ints: `int & Modifier.X` goes through IntFlag's __rand__ and makes an enum member each
# time (the method's flags are read on every stop).
_STATIC, _NATIVE, _ABSTRACT = int(Modifier.STATIC), int(Modifier.NATIVE), int(Modifier.ABSTRACT)
_SYNTHETIC = int(Modifier.SYNTHETIC | Modifier.JDWP_SYNTHETIC)
_VOLATILE, _TRANSIENT = int(Modifier.VOLATILE), int(Modifier.TRANSIENT)

@dataclass
class MethodInfo:
    type_id: int
    id: int
    name: str
    signature: str
    mod_bits: int
    lines: list[tuple[int, int]] | None = None  # (code index, line), sorted by code index; None = unknown yet
    start: int = -1
    end: int = -1
    variables: list[VariableSlot] | None = None
    arg_count: int = 0
    has_variable_table: bool | None = None
    # A method version the class had before it was redefined, still run by some frame: JDWP gives it method
    # id 0 and no name, lines or variables (as JDI's ObsoleteMethodImpl). See Vm.method.
    obsolete: bool = False
    # code index -> (the variable table it was read from, the variables live there): inspect/stack.py
    live_at: dict[int, tuple[Any, list[Any]]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_static(self) -> bool:
        return bool(self.mod_bits & _STATIC)

    @property
    def is_native(self) -> bool:
        return bool(self.mod_bits & _NATIVE)

    @property
    def is_abstract(self) -> bool:
        return bool(self.mod_bits & _ABSTRACT)

    @property
    def is_synthetic(self) -> bool:
        return bool(self.mod_bits & _SYNTHETIC)

    @property
    def is_bridge(self) -> bool:
        return bool(self.mod_bits & _VOLATILE)

    @property
    def is_varargs(self) -> bool:
        return bool(self.mod_bits & _TRANSIENT)

    @property
    def is_lambda_body(self) -> bool:
        return self.name.startswith("lambda$")

    @property
    def is_constructor(self) -> bool:
        return self.name == "<init>"

    @property
    def is_static_initializer(self) -> bool:
        return self.name == "<clinit>"

    @property
    def arg_types(self) -> list[str]:
        if self.obsolete:
            return []
        return [signature_to_java_name(s) for s in parse_method_signature(self.signature)[0]]

    @property
    def return_type(self) -> str:
        if self.obsolete:
            return "<unknown>"
        return signature_to_java_name(parse_method_signature(self.signature)[1])

    def line_at(self, index: int) -> int:
        if not self.lines:
            return -1
        pos = bisect.bisect_right(self.lines, (index, 1 << 62)) - 1
        return self.lines[pos][1] if pos >= 0 else self.lines[0][1]

    @property
    def line_numbers(self) -> list[int]:
        return sorted({line for _, line in self.lines or ()})

    def display(self) -> str:
        return f"{self.name}({', '.join(self.arg_types)})"


@dataclass
class FieldInfo:
    type_id: int  # declaring type
    id: int
    name: str
    signature: str
    mod_bits: int

    @property
    def is_static(self) -> bool:
        return bool(self.mod_bits & _STATIC)

    @property
    def type_name(self) -> str:
        return signature_to_java_name(self.signature)

    @property
    def is_synthetic(self) -> bool:
        return bool(self.mod_bits & _SYNTHETIC)


@dataclass
class TypeInfo:
    id: int
    tag: int
    signature: str
    status: int = 0
    source_file: str | None = None
    source_file_known: bool = False
    methods: list[MethodInfo] | None = None
    fields: list[FieldInfo] | None = None
    superclass: int | None = None  # 0 for java.lang.Object / interfaces
    interfaces: list[int] | None = None
    mod_bits: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # Seen only in a listing (Vm.all_classes): its `id` was given back to the JVM and is not to be used;
    # Vm.acquire finds the class again by its signature.
    listed: bool = False

    @functools.cached_property
    def name(self) -> str:  # (asked for every stop's location: worked out once)
        return signature_to_java_name(self.signature)

    @property
    def is_interface(self) -> bool:
        return self.tag == TypeTag.INTERFACE

    @property
    def is_array(self) -> bool:
        return self.tag == TypeTag.ARRAY

    @property
    def simple_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]


class Vm:
    """One attached VM: the connection plus caches of everything immutable about its classes."""

    def __init__(self, conn: JdwpConnection) -> None:
        self.conn = conn
        self.types: dict[int, TypeInfo] = {}
        self.by_signature: dict[str, list[int]] = {}
        self._all_loaded = False
        self._listed: dict[str, list[TypeInfo]] = {}  # signature -> classes seen only in the last listing
        self._thread_names: dict[int, str] = {}
        self.capabilities: dict[str, bool] = {}
        self.version: Any = None
        self._locks: dict[tuple[str, int], asyncio.Lock] = {}
        # Code the debugger inserted (in-JVM probe calls), by (class, method id): an index inside a [start,
        # end) range reads as `start`, the line's own first index (core/instrument/inserted.py).
        self.inserted: dict[tuple[int, int], list[tuple[int, int]]] = {}
        # Method versions a redefinition replaced while suspended frames ran them (see remember_running):
        # (thread, frame height from the bottom, class) -> a method id of our own, and its old tables.
        self._replaced: dict[tuple[int, int, int], int] = {}
        self._replaced_methods: dict[int, MethodInfo] = {}
        self._method_index: dict[int, tuple[list[MethodInfo], dict[int, MethodInfo]]] = {}  # type id -> (its methods, by id)
        # While a stop is handled: replies to reads its burst sent ahead (core/inspect/stop_burst.py).
        self.primed: Any = None

    async def send(self, command: Any, *args: Any, **kwargs: Any) -> Any:
        primed = self.primed
        if primed is not None and not kwargs:
            future = primed.take(command, args)
            if future is not None:
                return await future
        return await self.conn.send(command, *args, **kwargs)

    async def load_basics(self) -> None:
        self.version, caps = await asyncio.gather(
            self.send(VirtualMachine.Version), self.send(VirtualMachine.CapabilitiesNew)
        )
        self.capabilities = {k: v for k, v in caps._asdict().items() if not k.startswith("reserved")}

    # -- types ---------------------------------------------------------------------------------------

    def _remember(self, type_id: int, tag: int, signature: str, status: int = 0) -> TypeInfo:
        info = self.types.get(type_id)
        if info is None:
            info = TypeInfo(type_id, tag, signature, status)
            self.types[type_id] = info
            self.by_signature.setdefault(signature, []).append(type_id)
        elif status:
            info.status = status
        return info

    def class_prepared(self, type_id: int, tag: int, signature: str, status: int) -> TypeInfo:
        return self._remember(type_id, tag, signature, status)

    def forget(self, type_id: int) -> None:
        """Drop cached tables of a class (unloaded or redefined)."""
        info = self.types.pop(type_id, None)
        if info is not None:
            ids = self.by_signature.get(info.signature, [])
            if type_id in ids:
                ids.remove(type_id)
            if not ids:  # (no class of that signature known by ID: a listing shows its listed entry)
                self.by_signature.pop(info.signature, None)

    def class_unloaded(self, signature: str) -> None:
        for type_id in list(self.by_signature.get(signature, [])):
            self.forget(type_id)
        self._listed.pop(signature, None)

    async def type(self, type_id: int, tag: int | None = None) -> TypeInfo:
        info = self.types.get(type_id)
        if info is None:
            reply = await self.send(ReferenceType.Signature, type_id)
            info = self._remember(type_id, tag or _tag_of_signature(reply.signature), reply.signature)
        return info

    async def all_classes(self, refresh: bool = False) -> list[TypeInfo]:
        """Every loaded class. The listing's references are given back to the JVM at once: the JDWP agent
        pins every ID it has handed out at each suspend-all stop and unpins it at the resume, and a listing
        hands out one per class (407 classes of a bare JVM cost each stop ~0.08 ms; a server's thousands,
        about 1 ms). A class the debugger knows by ID from elsewhere keeps it; the others are `listed` (their
        `id` is not to be used): `acquire` finds the ones a caller picks again by signature."""
        if refresh or not self._all_loaded:
            reply = await self.send(VirtualMachine.AllClasses)
            listed: dict[str, list[TypeInfo]] = {}
            for c in reply.classes:
                info = self.types.get(c.type_id)
                if info is not None:
                    if c.status:
                        info.status = c.status
                else:
                    listed.setdefault(c.signature, []).append(
                        TypeInfo(c.type_id, c.ref_type_tag, c.signature, c.status, listed=True))
            self._listed = listed
            self._all_loaded = True
            if reply.classes:  # (each count 1: exactly the references this reply took)
                await self.send(VirtualMachine.DisposeObjects, [(c.type_id, 1) for c in reply.classes])
        # The in-JVM probes are the debugger's, not the program's: no class list shows them.
        known = [t for t in self.types.values() if not is_probe_class(t.signature)]
        return known + [t for signature, infos in self._listed.items() if signature not in self.by_signature
                        and not is_probe_class(signature) for t in infos]

    async def acquire(self, classes: list[TypeInfo]) -> list[TypeInfo]:
        """`classes` (from all_classes) with usable IDs: a class known by ID as it is, a `listed` one found again
        by its signature (every class of that signature, one per class loader), in the order given."""
        wanted = list(dict.fromkeys(t.signature for t in classes if t.listed))
        found = await asyncio.gather(*(self.send(VirtualMachine.ClassesBySignature, signature) for signature in wanted))
        again = {signature: [self._remember(c.type_id, c.ref_type_tag, signature, c.status) for c in reply.classes]
                 for signature, reply in zip(wanted, found, strict=True)}
        out: list[TypeInfo] = []
        seen: set[int] = set()
        for t in classes:
            for info in again.pop(t.signature, []) if t.listed else [t]:
                if info.id not in seen:
                    seen.add(info.id)
                    out.append(info)
        return out

    async def give_back(self, classes: list[TypeInfo]) -> None:
        """The IDs of classes acquired only to look at them (binding a file's breakpoint reads every class's
        source file) given back: each class is forgotten and listed again (its next use acquires it anew).
        Only for classes acquired by the caller itself, whose IDs nothing else holds."""
        if not classes:
            return
        for t in classes:
            self.forget(t.id)
            self._listed.setdefault(t.signature, []).append(
                TypeInfo(t.id, t.tag, t.signature, t.status, listed=True))
        try:
            await self.send(VirtualMachine.DisposeObjects, [(t.id, 1) for t in classes])
        except JdwpError:
            pass  # (a VM going away: nothing to give back)

    async def classes_by_name(self, name: str) -> list[TypeInfo]:
        signature = java_name_to_signature(name)
        reply = await self.send(VirtualMachine.ClassesBySignature, signature)
        return [self._remember(c.type_id, c.ref_type_tag, signature, c.status) for c in reply.classes]

    async def methods(self, type_id: int) -> list[MethodInfo]:
        info = await self.type(type_id)
        if info.methods is None:
            reply = await self.send(ReferenceType.Methods, type_id)
            info.methods = [MethodInfo(type_id, m.method_id, m.name, m.signature, m.mod_bits) for m in reply.declared]
        return info.methods

    def known_method(self, type_id: int, method_id: int) -> MethodInfo | None:
        """The method when its class's methods are cached (no request made), else None."""
        if method_id == OBSOLETE_METHOD_ID:
            return obsolete_method(type_id)
        if method_id in self._replaced_methods:
            return self._replaced_methods[method_id]
        info = self.types.get(type_id)
        if not info or not info.methods:
            return None
        index = self._method_index.get(type_id)
        if index is None or index[0] is not info.methods:  # (made again when the class's methods are read again)
            index = self._method_index[type_id] = (info.methods, {m.id: m for m in info.methods})
        return index[1].get(method_id)

    async def method(self, type_id: int, method_id: int) -> MethodInfo:
        if method_id == OBSOLETE_METHOD_ID:
            return obsolete_method(type_id)
        if method_id in self._replaced_methods:
            return self._replaced_methods[method_id]
        for m in await self.methods(type_id):
            if m.id == method_id:
                return m
        # A method of a redefined class version: fetch afresh.
        self.forget(type_id)
        for m in await self.methods(type_id):
            if m.id == method_id:
                return m
        raise JdwpError(ErrorCode.INVALID_METHODID, "Method lookup")

    async def fields(self, type_id: int) -> list[FieldInfo]:
        info = await self.type(type_id)
        if info.fields is None:
            reply = await self.send(ReferenceType.Fields, type_id)
            info.fields = [FieldInfo(type_id, f.field_id, f.name, f.signature, f.mod_bits) for f in reply.declared]
        return info.fields

    async def superclass(self, type_id: int) -> int:
        info = await self.type(type_id)
        if info.superclass is None:
            if info.tag != TypeTag.CLASS:
                info.superclass = 0
            else:
                info.superclass = (await self.send(ClassType.Superclass, type_id)).superclass
        return info.superclass

    async def interfaces(self, type_id: int) -> list[int]:
        info = await self.type(type_id)
        if info.interfaces is None:
            info.interfaces = (await self.send(ReferenceType.Interfaces, type_id)).interfaces
        return info.interfaces

    async def hierarchy(self, type_id: int) -> list[int]:
        """The class and its superclasses, most derived first."""
        chain = [type_id]
        while (sup := await self.superclass(chain[-1])) != 0:
            chain.append(sup)
        return chain

    async def all_fields(self, type_id: int) -> list[FieldInfo]:
        """Declared and inherited fields, most derived class first."""
        result: list[FieldInfo] = []
        for t in await self.hierarchy(type_id):
            result.extend(await self.fields(t))
        return result

    async def is_assignable(self, type_id: int, target_name: str) -> bool:
        """Is an instance of type_id assignable to the class/interface named target_name?"""
        seen: set[int] = set()
        stack = [type_id]
        target_sig = java_name_to_signature(target_name)
        while stack:
            t = stack.pop()
            if t in seen or t == 0:
                continue
            seen.add(t)
            info = await self.type(t)
            if info.signature == target_sig:
                return True
            if info.tag == TypeTag.ARRAY:
                return target_name in ("java.lang.Object", "java.lang.Cloneable", "java.io.Serializable")
            stack.append(await self.superclass(t))
            stack.extend(await self.interfaces(t))
        return target_name == "java.lang.Object"

    async def source_file(self, type_id: int) -> str | None:
        info = await self.type(type_id)
        if not info.source_file_known:
            try:
                info.source_file = (await self.send(ReferenceType.SourceFile, type_id)).source_file
            except AbsentInformation:
                info.source_file = None
            except JdwpError:
                info.source_file = None
            info.source_file_known = True
        return info.source_file

    async def line_table(self, type_id: int, method_id: int) -> MethodInfo:
        method = await self.method(type_id, method_id)
        if method.lines is None:
            try:
                reply = await self.send(Method.LineTable, type_id, method_id)
                method.lines = sorted((entry.line_code_index, entry.line_number) for entry in reply.lines)
                method.start, method.end = reply.start, reply.end
            except JdwpError:  # native, abstract, or compiled without -g:lines
                method.lines = []
        return method

    async def line_tables(self, type_id: int) -> list[MethodInfo]:
        """Every method of the class with its line table, fetched in one pipelined burst."""
        methods = await self.methods(type_id)
        await asyncio.gather(*(self.line_table(type_id, m.id) for m in methods if m.lines is None))
        return methods

    async def variables(self, type_id: int, method_id: int) -> MethodInfo:
        method = await self.method(type_id, method_id)
        if method.has_variable_table is None:
            try:
                reply = await self.send(Method.VariableTable, type_id, method_id)
                method.arg_count = reply.arg_cnt
                args_slots = reply.arg_cnt
                method.variables = [
                    VariableSlot(s.name, s.signature, s.slot, s.code_index, s.length, s.slot < args_slots)
                    for s in reply.slots
                ]
                method.has_variable_table = True
            except JdwpError:
                method.variables = []
                method.has_variable_table = False
        return method

    async def remember_running(self, type_ids: set[int]) -> None:
        """Before redefining these classes: the methods suspended frames run in them, with their line and
        variable tables, so that a frame left on the replaced (obsolete) code still reads with its method,
        line and locals afterwards (JDWP forgets all three). A running thread is not looked at."""
        for thread in (await self.send(VirtualMachine.AllThreads)).threads:
            try:
                frames = (await self.send(ThreadReference.Frames, thread, 0, -1)).frames
            except JdwpError:
                continue
            for position, frame in enumerate(frames):
                loc = frame.location
                if loc.class_id not in type_ids or not loc.method_id or loc.method_id in self._replaced_methods:
                    continue
                await self.line_table(loc.class_id, loc.method_id)
                current = await self.variables(loc.class_id, loc.method_id)
                synthetic = REPLACED_IDS + len(self._replaced_methods) + 1
                self._replaced_methods[synthetic] = dataclasses.replace(current, id=synthetic, obsolete=True, live_at={})
                self._replaced[(thread, len(frames) - 1 - position, loc.class_id)] = synthetic

    @property
    def replaced_any(self) -> bool:
        """Did a redefinition leave suspended frames on replaced code (remember_running kept some)?"""
        return bool(self._replaced)

    def known_version(self, thread_id: int, height: int, location: Location) -> Location:
        """An obsolete frame's location (method id 0) with the method version it runs, when the debugger saw
        the frame before the redefinition (remember_running); `height` counts frames from the bottom."""
        if location.method_id != OBSOLETE_METHOD_ID:
            return location
        synthetic = self._replaced.get((thread_id, height, location.class_id))
        return location if synthetic is None else location._replace(method_id=synthetic)

    async def readable_location(self, thread_id: int, index: int, location: Location) -> Location:
        """Frame `index` (0 = top) of a suspended thread: its location as known_version reads it."""
        if location.method_id != OBSOLETE_METHOD_ID:
            return location
        try:
            count = (await self.send(ThreadReference.FrameCount, thread_id)).frame_count
        except JdwpError:
            return location
        return self.known_version(thread_id, count - 1 - index, location)

    def shown_index(self, location: Location) -> int:
        """The code index as the program's own class file has it (an index inside inserted code: the line's)."""
        for start, end in self.inserted.get((location.class_id, location.method_id), ()):
            if start <= location.index < end:
                return start
        return location.index

    def known_code_location(self, location: Location) -> CodeLocation | None:
        """code_location when its tables are cached (as from a place's second stop on), else None: no
        coroutine to run at every stop."""
        method = self.known_method(location.class_id, location.method_id)
        info = self.types.get(location.class_id)
        if method is None or method.lines is None or info is None or not info.source_file_known:
            return None
        return self._code_location(location, method, info.name, info.source_file)

    async def code_location(self, location: Location) -> CodeLocation:
        known = self.known_code_location(location)
        if known is not None:
            return known
        method = await self.line_table(location.class_id, location.method_id)
        info = await self.type(location.class_id)
        return self._code_location(location, method, info.name, await self.source_file(location.class_id))

    def _code_location(self, location: Location, method: MethodInfo, class_name: str,
                       source_file: str | None) -> CodeLocation:
        return CodeLocation(
            class_name=class_name,
            method=method.name,
            line=method.line_at(location.index),
            source_file=source_file,
            method_signature=method.signature or None,
            code_index=self.shown_index(location),
            obsolete=method.obsolete,
        )

    # -- threads -------------------------------------------------------------------------------------

    def known_thread_name(self, thread_id: int) -> str | None:
        return self._thread_names.get(thread_id)

    async def thread_name(self, thread_id: int) -> str:
        name = self._thread_names.get(thread_id)
        if name is None:
            try:
                name = (await self.send(ThreadReference.Name, thread_id)).thread_name
            except JdwpError:
                name = f"thread-{thread_id}"
            self._thread_names[thread_id] = name
        return name

    def thread_died(self, thread_id: int) -> None:
        self._thread_names.pop(thread_id, None)


def _tag_of_signature(signature: str) -> int:
    return TypeTag.ARRAY if signature.startswith("[") else TypeTag.CLASS
