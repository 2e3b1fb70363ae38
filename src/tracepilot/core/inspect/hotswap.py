"""Hot-swap: redefine loaded classes from .class files (a classes directory, or files), only those
changed since a time; schema changes and other refusals are reported per class.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ...jdwp import JdwpError, VirtualMachine
from ..errors import InvalidArgument

REASONS = {
    "SCHEMA_CHANGE_NOT_IMPLEMENTED": "fields were added, removed or changed (schema change): restart needed",
    "ADD_METHOD_NOT_IMPLEMENTED": "a method was added: restart needed",
    "DELETE_METHOD_NOT_IMPLEMENTED": "a method was removed: restart needed",
    "HIERARCHY_CHANGE_NOT_IMPLEMENTED": "the superclass or interfaces changed: restart needed",
    "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED": "class modifiers changed: restart needed",
    "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED": "method modifiers changed: restart needed",
    "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED": "class attributes (e.g. nest members, records) changed: restart needed",
    "NAMES_DONT_MATCH": "the class file declares another class",
    "UNSUPPORTED_VERSION": "the class file version is newer than this JVM",
    "FAILS_VERIFICATION": "the new bytecode fails verification",
    "INVALID_CLASS_FORMAT": "not a valid class file",
    "CIRCULAR_CLASS_DEFINITION": "circular class definition",
}


def class_name_of(data: bytes) -> str:
    """The binary name a class file declares (this_class), read from its constant pool."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a class file")
    count = struct.unpack_from(">H", data, 8)[0]
    pos = 10
    utf8: dict[int, str] = {}
    classes: dict[int, int] = {}
    index = 1
    while index < count:
        tag = data[pos]
        if tag == 1:
            length = struct.unpack_from(">H", data, pos + 1)[0]
            utf8[index] = data[pos + 3:pos + 3 + length].decode("utf-8", "replace")
            pos += 3 + length
        elif tag == 7:
            classes[index] = struct.unpack_from(">H", data, pos + 1)[0]
            pos += 3
        elif tag in (8, 16, 19, 20):
            pos += 3
        elif tag == 15:
            pos += 4
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            pos += 5
        elif tag in (5, 6):
            pos += 9
            index += 1  # 8-byte constants take two slots
        else:
            raise ValueError(f"bad constant pool tag {tag}")
        index += 1
    this_class = struct.unpack_from(">H", data, pos + 2)[0]
    return utf8[classes[this_class]].replace("/", ".")


def class_files(path: str, since: float | None) -> list[Path]:
    files: list[Path] = []
    for part in [p for p in path.split(",") if p.strip()] or [path]:
        p = Path(part.strip()).expanduser()
        if p.is_dir():
            files.extend(sorted(p.rglob("*.class")))
        elif p.is_file() and p.suffix == ".class":
            files.append(p)
        else:
            raise InvalidArgument(f"'{part}' is neither a classes directory nor a .class file",
                                  "give the compiler's output directory (e.g. target/classes) or .class files")
    if since is not None:
        files = [f for f in files if f.stat().st_mtime > since]
    return files


def explain(exc: JdwpError) -> str:
    name = exc.code.name if hasattr(exc.code, "name") else str(exc.code)
    return REASONS.get(name, name)


async def redefine(vm, pairs: list[tuple[str, int, bytes]]) -> dict[str, str]:  # noqa: ANN001
    """Redefine all at once; if the VM refuses, retry one by one so each refusal names its class."""
    if not pairs:
        return {}
    try:  # frames that run a method now go on running its old code: keep what they need to be read
        await vm.remember_running({type_id for _, type_id, _ in pairs})
    except JdwpError:
        pass
    try:
        await vm.send(VirtualMachine.RedefineClasses, [(t, data) for _, t, data in pairs])
        return {}
    except JdwpError as exc:
        if len(pairs) == 1:
            return {pairs[0][0]: explain(exc)}
    errors: dict[str, str] = {}
    for name, type_id, data in pairs:
        try:
            await vm.send(VirtualMachine.RedefineClasses, [(type_id, data)])
        except JdwpError as exc:
            errors[name] = explain(exc)
    return errors
