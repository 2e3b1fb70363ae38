"""Class shapes for the compiler: from the target JVM over JDWP, or from class files (tests, tools)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from ...jdwp import JdwpError, ReferenceType
from .classfile import ClassFile, LocalVariableTable, Member
from .compile import ClassShape, MemberShape, Site

__all__ = ["ClassFileResolver", "JdwpResolver", "site_of"]


def shape_of_classfile(cf: ClassFile) -> ClassShape:
    pool = cf.pool
    return ClassShape(
        cf.name, cf.access, pool.class_name(cf.super_class) if cf.super_class else None,
        [pool.class_name(i) for i in cf.interfaces],
        [MemberShape(cf.member_name(f), cf.member_descriptor(f), f.access) for f in cf.fields],
        [MemberShape(cf.member_name(m), cf.member_descriptor(m), m.access) for m in cf.methods])


class ClassFileResolver:
    """Shapes read from class directories and jar/jmod archives."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = roots
        self._zips = [zipfile.ZipFile(r) for r in roots if r.is_file()]
        self._cache: dict[str, ClassShape | None] = {}

    async def shape(self, internal_name: str) -> ClassShape | None:
        if internal_name not in self._cache:
            self._cache[internal_name] = self._load(internal_name)
        return self._cache[internal_name]

    def _load(self, name: str) -> ClassShape | None:
        if name.startswith("["):
            return None
        for root in self.roots:
            path = root / f"{name}.class"
            if root.is_dir() and path.exists():
                return shape_of_classfile(ClassFile.parse(path.read_bytes()))
        for z in self._zips:
            for entry in (f"{name}.class", f"classes/{name}.class"):
                try:
                    return shape_of_classfile(ClassFile.parse(z.read(entry)))
                except KeyError:
                    continue
        return None


class JdwpResolver:
    """Shapes of the classes loaded in the target, preferring the breakpoint class's loader."""

    def __init__(self, vm: Any, class_loader: int) -> None:
        self.vm = vm
        self.class_loader = class_loader
        self._cache: dict[str, ClassShape] = {}

    async def shape(self, internal_name: str) -> ClassShape | None:
        found = self._cache.get(internal_name)
        if found is None:  # not loaded yet is not remembered: it may load later
            try:
                found = await self._load(internal_name)
            except JdwpError:
                found = None
            if found is not None:
                self._cache[internal_name] = found
        return found

    async def _load(self, name: str) -> ClassShape | None:
        if name.startswith("["):
            return None
        types = await self.vm.classes_by_name(name.replace("/", "."))
        if not types:
            return None
        chosen = types[0]
        if len(types) > 1:
            for t in types:
                if (await self.vm.send(ReferenceType.ClassLoader, t.id)).class_loader == self.class_loader:
                    chosen = t
                    break
        modifiers = (await self.vm.send(ReferenceType.Modifiers, chosen.id)).mod_bits
        if chosen.is_interface:
            superclass, modifiers = None, modifiers | 0x200
        else:
            super_id = await self.vm.superclass(chosen.id)
            superclass = (await self.vm.type(super_id)).signature[1:-1] if super_id else None
        interfaces = [(await self.vm.type(i)).signature[1:-1] for i in await self.vm.interfaces(chosen.id)]
        fields = [MemberShape(f.name, f.signature, f.mod_bits) for f in await self.vm.fields(chosen.id)]
        methods = [MemberShape(m.name, m.signature, m.mod_bits) for m in await self.vm.methods(chosen.id)]
        return ClassShape(name, modifiers, superclass, interfaces, fields, methods)


def site_of(cf: ClassFile, method: Member, at: int) -> Site:
    """The compiler's view of a code index: locals live there (from LocalVariableTable), static or not."""
    code = method.code
    assert code is not None
    live: dict[str, tuple[int, str]] = {}
    tables = [t for t in code.find(LocalVariableTable) if cf.pool.utf8(t.name_index) == "LocalVariableTable"]
    for table in tables:
        for e in table.entries:
            if e.start_pc <= at < e.start_pc + e.length:
                live[cf.pool.utf8(e.name_index)] = (e.slot, cf.pool.utf8(e.descriptor_index))
    is_static = bool(method.access & 0x0008)
    this_usable = not is_static and (cf.member_name(method) != "<init>" or _after_super_call(cf, method, at))
    return Site(cf.name, is_static, live, this_usable, has_variable_table=bool(tables))


def _after_super_call(cf: ClassFile, method: Member, at: int) -> bool:
    """In a constructor, has the this()/super() call run before `at`? (Until then `this` is uninitialized.)"""
    from . import bytecode as bc

    for ins in bc.decode(method.code.code):  # type: ignore[union-attr]
        if ins.offset >= at:
            return False
        if ins.opcode == bc.INVOKESPECIAL:
            index = int.from_bytes(method.code.code[ins.offset + 1:ins.offset + 3], "big")  # type: ignore[union-attr]
            owner, name, _ = cf.pool.member_ref(index)
            if name == "<init>" and owner in (cf.name, cf.pool.class_name(cf.super_class)):
                return True
    return False
