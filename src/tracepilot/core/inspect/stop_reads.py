"""The reads a stop makes while it is handled (the top frame, its depth, its locals and their previews),
sent as one burst (stop_burst.py) and taken from it: the same requests and answers as asked one after the
other, one round trip instead of three."""

from __future__ import annotations

from typing import Any

from ...jdwp import Location
from ..model import Variable
from .stop_burst import Burst, Primed, Recipes, send_burst, slot_request


class StopReads:
    def __init__(self) -> None:
        self._at: dict[int, tuple[Any, Location]] = {}  # id(stop) -> (stop, the event's location)
        self.recipes = Recipes()
        self.bursts = 0  # (for tests and benchmarks) bursts sent, and those whose values were taken
        self.values_taken = 0

    def note(self, stop: Any, location: Location | None) -> None:
        """The location the event of `stop` names (its thread's top frame, for breakpoints and steps)."""
        if location is None or location.method_id == 0:
            return
        if len(self._at) > 64:
            self._at.clear()
        self._at[id(stop)] = (stop, location)

    def forget(self) -> None:
        self._at.clear()

    async def send(self, vm: Any, frames: Any, stop: Any) -> Burst | None:
        """Write the burst for `stop` (None when its event named no location)."""
        noted = self._at.pop(id(stop), None)
        if noted is None or noted[0] is not stop or not stop.thread_id:
            return None
        location = noted[1]
        tid = stop.thread_id
        predicted = frames.guess.predict(tid)
        slots: list[tuple[int, int]] | None = None
        with_this = False
        if predicted is not None:
            live, _ = await frames.live_slots(location)  # (cached after the first stop in the method)
            slots = slot_request(live)
            method = await vm.method(location.class_id, location.method_id)
            with_this = not method.is_static and not method.is_native
        self.bursts += 1
        return send_burst(vm.conn, tid, location, predicted, slots, with_this, self.recipes.get(location))

    async def variables(self, vm: Any, frames: Any, values: Any, thread_id: int, top: Any,
                        burst: Burst | None) -> list[Variable]:
        """The top frame's locals, their reads taken from the burst where it asked the same; the object
        reads they made become the recipe for the next stop at this place."""
        primed = burst.primed if burst is not None else Primed()
        vm.primed = primed
        try:
            variables = await frames.variables(thread_id, top, values)
        finally:
            vm.primed = None
        if primed.taken:
            self.values_taken += 1
        self.recipes.put(top.location, primed.recorded)
        return variables
