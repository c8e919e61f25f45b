"""Programs written as find/replace edits of a reference: the format of mutants.toml and samples.toml.

An edit is ``{find = "...", replace = "..."}``; its `find` text must occur exactly once in the text
it edits, so an edit that no longer fits the reference fails loudly instead of drifting.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class EditError(ValueError):
    """An edit whose `find` text does not occur exactly once."""


def apply_edits(text: str, edits: Iterable[Mapping[str, str]], what: str = "the reference") -> str:
    """TEXT with every edit applied in order; EditError names the first that does not fit."""
    for number, edit in enumerate(edits, 1):
        find, replace = edit["find"], edit["replace"]
        count = text.count(find)
        if count != 1:
            raise EditError(f"edit {number}: its find text occurs {count} times in {what} "
                            f"(it must occur exactly once): {find[:80]!r}")
        text = text.replace(find, replace)
    return text
