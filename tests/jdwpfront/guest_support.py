"""Helpers for the JDWP front end tests: a subprocess read line by line (a JDI program, jdb); kept in
tests/support (lines.py, jdb.py, relay.py) for every test that drives one."""

from __future__ import annotations

from support.lines import LineProcess, line_process

__all__ = ["LineProcess", "line_process"]
