"""Where a method breakpoint's probe is called, and what its condition can name there.

Entry: before the method's first instruction (code index 0), where a JDWP method-entry breakpoint binds. A
jump back to index 0 (a loop that starts the method) runs the call again, as it would hit that breakpoint.

Exit: before every return instruction. JDWP reports a method exit only for a normal return ("Method exit
events are not generated if the method terminates with a thrown exception", JDWP spec, METHOD_EXIT), so an
exit by exception calls no probe either. The value being returned is on top of the operand stack there: the
inserted code copies it (dup/dup2) as the probe's first argument, named ``$return`` as on the round trip.
The probe is shared by every return of the method, so its condition sees what every return sees: the locals
live at all of them (a local live at some returns only is not compiled; the round trip evaluates it).
"""

from __future__ import annotations

from . import bytecode as bc
from .classfile import ClassFile, Code, Member
from .resolve import site_of
from .shapes import Capture, Site

__all__ = ["ENTRY", "EXIT", "method_site", "return_descriptor_of", "site_offsets"]

ENTRY, EXIT = "entry", "exit"
RETURNS = frozenset(range(bc.IRETURN, bc.RETURN + 1))


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
