"""Results about classes, locks and the heap (part of the shared model, split from model.py by size)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import CodeLocation, Model, ValueView

__all__ = ["ClassSummary", "Deadlock", "HeapCount", "LockReport", "MemberInfo", "Referrer", "Referrers",
           "ThreadLocks"]


@dataclass
class MemberInfo(Model):
    name: str
    kind: str  # method | field
    signature: str  # "int add(int, int)" / "int count"
    static: bool = False
    lines: list[int] = field(default_factory=list)  # first..last line of a method


@dataclass
class ClassSummary(Model):
    name: str
    kind: str  # class | interface | array
    source_file: str | None = None
    methods: list[MemberInfo] | None = None
    fields: list[MemberInfo] | None = None


@dataclass
class ThreadLocks(Model):
    """What one thread holds and waits for (monitors and java.util.concurrent locks)."""

    thread: str
    thread_id: int
    state: str
    holds: list[ValueView] = field(default_factory=list)
    waits_for: ValueView | None = None
    wait_kind: str | None = None  # monitor | park (j.u.c. lock) | wait (Object.wait)
    owner: str | None = None  # thread that holds what this one waits for
    owner_id: int | None = None
    at: CodeLocation | None = None  # the thread's top frame in application code


@dataclass
class Deadlock(Model):
    threads: list[str]
    description: str  # "thread A holds X, waits for Y held by thread B; thread B holds Y, waits for X held by thread A"


@dataclass
class LockReport(Model):
    threads: list[ThreadLocks] = field(default_factory=list)  # threads that hold or wait for a lock
    deadlocks: list[Deadlock] = field(default_factory=list)

    def headline(self) -> str:
        if not self.deadlocks:
            return f"no deadlock ({len(self.threads)} threads hold or wait for locks)"
        return "; ".join(f"DEADLOCK: {d.description}" for d in self.deadlocks)


@dataclass
class HeapCount(Model):
    class_name: str
    count: int


@dataclass
class Referrer(Model):
    value: ValueView
    via: list[str] = field(default_factory=list)  # field names / indices that point at the target


@dataclass
class Referrers(Model):
    target: ValueView
    referrers: list[Referrer] = field(default_factory=list)
    more: bool = False
