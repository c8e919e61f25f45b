"""The one TOML reader of the kit: the standard library's tomllib (Python 3.11+), else tomli.

    from autograder import toml
    data = toml.loads(text)           # or toml.load(binary_file); toml.TOMLDecodeError
    data = toml.loads_kept(text)      # a course's scenario tables: parsed once a machine (codecache)
"""

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, load, loads
else:  # pragma: no cover - Python 3.10
    from tomli import TOMLDecodeError, load, loads

__all__ = ["TOMLDecodeError", "load", "loads", "loads_kept"]


def loads_kept(text: str) -> dict:
    """loads(TEXT), parsed once a machine, not once a process (engine/codecache.parsed): for a
    course's own scenario tables, read by every grading session's suites (engine/suite.py)."""
    from .engine import codecache

    return codecache.parsed("toml", text, loads)
