"""The one TOML reader of the kit: the standard library's tomllib (Python 3.11+), else tomli.

    from autograder import toml
    data = toml.loads(text)           # or toml.load(binary_file); toml.TOMLDecodeError
"""

import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, load, loads
else:  # pragma: no cover - Python 3.10
    from tomli import TOMLDecodeError, load, loads

__all__ = ["TOMLDecodeError", "load", "loads"]
