"""The file names a run writes per student, unique on any disk.

Student ids are case-sensitive (`Alice` and `alice` are two students), but macOS's and Windows'
disks, and a zip of the feedback opened there, are not: `feedback/Alice.html` and
`feedback/alice.html` would be one file, one student's feedback overwriting the other's.  Each id
whose name clashes with another's under case folding and Unicode normalisation, or is a device name
Windows reserves (`con`, `nul`, `com1`... whatever the extension), gets a stem of its own: the id and
a digest of it.  Every other id is its own stem, so no name moves where nothing clashes.
"""

from __future__ import annotations

import collections
import hashlib
import re
import unicodedata
from collections.abc import Iterable

RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$")


def fold(name: str) -> str:
    """NAME as a case-insensitive, normalisation-insensitive disk compares it (APFS: Unicode case
    folding of the normalised name; NTFS: case only)."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def file_stems(ids: Iterable[str]) -> dict[str, str]:
    """id -> the stem of its files (feedback/<stem>.html, ...): the id itself unless it clashes."""
    ids = sorted(set(ids))
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for sid in ids:
        groups[fold(sid)].append(sid)
    plain = {sid for key, members in groups.items() if len(members) == 1 and not RESERVED.match(key)
             for sid in members}
    taken = {fold(sid) for sid in plain}
    stems = {sid: sid for sid in plain}
    for sid in ids:
        if sid in stems:
            continue
        digest = hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()
        for size in (8, 16, 64):        # (longer only if an id is literally another's stem)
            stem = f"{sid}-{digest[:size]}"
            if fold(stem) not in taken:
                break
        stems[sid] = stem
        taken.add(fold(stem))
    return stems
