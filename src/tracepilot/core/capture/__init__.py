"""Capture points: a breakpoint that never stops the program. At a passing hit the hitting thread is held for
the moment it takes to read its stack and values (limits.py), which become a `Capture` (model.py) kept in the
session's capture book (book.py); points.py decides per hit (how many, how fast) and reader.py reads."""
