"""Where a method breakpoint's probe is called, and what its condition can name there.

Entry: before the method's first instruction (code index 0), where a JDWP method-entry breakpoint binds. A
jump back to index 0 (a loop that starts the method) runs the call again, as it would hit that breakpoint.

Exit: before every return instruction. JDWP reports a method exit only for a normal return ("Method exit
events are not generated if the method terminates with a thrown exception", JDWP spec, METHOD_EXIT), so an
exit by exception calls no probe either. The value being returned is on top of the operand stack there: the
inserted code copies it (dup/dup2) as the probe's first argument, named ``$return`` as on the round trip.
The probe is shared by every return of the method, so its condition sees what every return sees: the locals
live at all of them (a local live at some returns only is not compiled; the round trip evaluates it).

An exit logpoint's line says where it fired and what was returned, as the round trip's does ("... — at
Foo.bar:12 returned 42"): the inserted call passes the return's ordinal (a constant per site), and the line
ends with SITE, the ordinal, SITE, and the value returned (a null flag first for a String). ``exit_suffix``
writes that end, ``split_exit_line`` reads it.
"""

from __future__ import annotations

import re

from . import bytecode as bc
from .classfile import ClassFile, Code, LineNumberTable, Member
from .resolve import site_of
from .shapes import STRING, Capture, NotCompilable, Site, Typed

__all__ = ["ENTRY", "EXIT", "SITE_CAPTURE", "exit_suffix", "method_site", "return_descriptor_of", "site_lines",
           "site_offsets", "split_exit_line"]

ENTRY, EXIT = "entry", "exit"
RETURNS = frozenset(range(bc.IRETURN, bc.RETURN + 1))
SITE = "\u0005"
SITE_CAPTURE = Capture("site", "I")  # the inserted code pushes the return's ordinal
# Return types whose text the JVM writes as the debugger renders them (String: quoted by the debugger).
LOGGED_RETURNS = ("V", "I", "J", "S", "B", "Z", "C", STRING)
_EXIT_END = re.compile(f"{SITE}(\\d+){SITE}(true|false)?{SITE}")


def site_offsets(code: Code, at: str) -> list[int]:
    """The code indices the probe call goes in front of, in code order."""
    if at == ENTRY:
        return [0]
    return [ins.offset for ins in bc.decode(code.code) if ins.opcode in RETURNS]


def return_descriptor_of(method_descriptor: str) -> str:
    return method_descriptor[method_descriptor.index(")") + 1:]


def method_site(cf: ClassFile, method: Member, at: str) -> tuple[Site, Capture | None]:
    """The compiler's view of the method's probe sites, and the returned value's capture (exit, not void)."""
    code = method.code
    assert code is not None
    offsets = site_offsets(code, at)
    if not offsets:  # a method that only throws: no return to watch (the round trip never reports one)
        return site_of(cf, method, 0), None
    sites = [site_of(cf, method, offset) for offset in offsets]
    site = sites[0]
    site.locals = {name: where for name, where in site.locals.items() if all(s.locals.get(name) == where for s in sites)}
    site.this_usable = all(s.this_usable for s in sites)
    returned = None
    if at == EXIT:
        descriptor = return_descriptor_of(cf.member_descriptor(method))
        if descriptor != "V":
            returned = Capture("return", descriptor)
            site.marks = {"$return": returned}
    return site, returned


def site_lines(code: Code, at: str) -> list[int]:
    """The source line of each site (-1 without a line table), in the order of site_offsets."""
    entries = sorted((e.start_pc, e.line) for table in code.find(LineNumberTable) for e in table.entries)
    lines = []
    for offset in site_offsets(code, at):
        before = [line for start, line in entries if start <= offset]
        lines.append(before[-1] if before else -1)
    return lines


def exit_suffix(returned: Typed | None, site: Typed) -> list[Typed | str]:
    """The parts an exit logpoint's line ends with (see the module's doc)."""
    parts: list[Typed | str] = [SITE, site, SITE]
    if returned is not None and returned.type not in LOGGED_RETURNS:
        raise NotCompilable("an exit logpoint's value returned, of this type, is rendered by the debugger")
    if returned is not None and returned.type == STRING:
        parts.append(Typed("isnull", "Z", [returned], "=="))
    parts.append(SITE)
    if returned is not None:
        parts.append(returned)
    return parts


def split_exit_line(line: str) -> tuple[str, int, bool, str] | None:
    """An exit logpoint's line -> (its text, the return's ordinal, returned null, the value's text)."""
    match = _EXIT_END.search(line)
    if match is None:
        return None
    return line[:match.start()], int(match.group(1)), match.group(2) == "true", line[match.end():]
