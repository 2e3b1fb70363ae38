"""A line with a hit count in more than one class (a one-line anonymous class: the line is in the enclosing
method and in the class's own methods). In the JVM each class's probe would count its own hits, where the round
trip counts the line's hits together (the rule's n-th hit is the line's n-th). So once such a breakpoint binds in
a second class it takes the round trip in all of them, and says why; breakpoints/counted_apart.py makes the
move. (Two methods of one class, a one-line lambda's: plan.py refuses those at once.)"""

from __future__ import annotations

from typing import Any

APART = "its line is in more than one class: a hit count counts their hits together, by round trip"


def counted_apart(bp: Any, type_id: int) -> bool:
    """Must `bp`, binding in class `type_id`, count by round trip? (Once so, it stays so while it has a hit
    count: its classes do not unload.)"""
    if bp.info.kind != "line" or bp.hit_rule is None:
        return False
    if bp.bound_types - {type_id}:
        bp.counted_apart = True
    return bp.counted_apart
