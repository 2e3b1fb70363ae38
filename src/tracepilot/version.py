"""The installed version of tracepilot, looked up in one place (MCP server, diagnose, the `version` command)."""

from __future__ import annotations


def package_version() -> str:
    """The version pip installed; the source tree's own number when it runs uninstalled."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version("tracepilot")
    except PackageNotFoundError:
        from . import __version__  # noqa: PLC0415

        return __version__
