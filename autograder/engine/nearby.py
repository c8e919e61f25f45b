"""The names a misnamed function may have meant: the one "did you mean" of every runtime.

Stdlib only and self-contained: the sandbox's harness joins this file as one of its parts
(harness/__init__.py PARTS) and the public self-check runtime embeds it as text
(notebooks/runtime.py SELFCHECK), so a notebook, check.py and the grader offer the same name.
"""

import difflib
import re


def close_names(name: str, names: list[str], n: int) -> list[str]:
    """Up to N of NAMES that NAME may have meant, nearest first: the same words in another order or
    case (`upper_score`, `scoreUpper` for `score_upper`), then difflib's close matches."""
    words = _words(name)
    same = sorted((other for other in names if other != name and _words(other) == words),
                  key=lambda other: -difflib.SequenceMatcher(None, name, other).ratio())
    close = difflib.get_close_matches(name, names, n=n)
    return (same + [other for other in close if other not in same])[:n]


def _words(name: str) -> list[str]:
    """NAME's words, lower case, in order of the alphabet: snake_case and camelCase split alike."""
    return sorted(word.lower() for word in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", name))
