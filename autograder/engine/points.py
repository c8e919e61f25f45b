"""What a check's markers say (each read once a walk), and the points shared out at collection
(share_points: see engine/plugin.py's docstring)."""

from __future__ import annotations

import pytest


def closest(item: pytest.Item, name: str, markers: dict | None = None):
    """ITEM's closest NAME marker, or None (MARKERS: closest_markers(ITEM), when known)."""
    return item.get_closest_marker(name) if markers is None else markers.get(name)


def marker_arg(item: pytest.Item, name: str, default=None, markers: dict | None = None):
    """NAME's closest marker's first argument (MARKERS: closest_markers(ITEM), when known)."""
    marker = closest(item, name, markers)
    return marker.args[0] if marker and marker.args else default


def closest_markers(item: pytest.Item) -> dict | None:
    """Each marker name of ITEM -> its closest marker (what get_closest_marker gives), in one walk
    of ITEM's markers, not one per name asked (None for an item without iter_markers: ask it)."""
    walk = getattr(item, "iter_markers", None)
    if walk is None:
        return None
    closest: dict = {}
    for marker in walk():
        closest.setdefault(marker.name, marker)
    return closest


def share_points(items, assignment) -> None:
    """Give every check of a problem without a points(P) marker its share of the problem's points
    (the assignment table's, less the explicit points of its other checks), by weight(W) (default
    1), as a points marker; the last one takes the rounding remainder, so the total is exact."""
    shared: dict[int, list] = {}
    explicit: dict[int, float] = {}
    weight_of: dict[int, object] = {}          # id(item) -> its weight marker's argument
    for item in items:
        markers = closest_markers(item)
        problem = int(marker_arg(item, "problem", 0, markers))
        if not problem:
            continue
        weight_of[id(item)] = marker_arg(item, "weight", 1, markers)
        points = marker_arg(item, "points", None, markers)
        if points is not None:
            explicit[problem] = explicit.get(problem, 0.0) + float(points)
        else:
            shared.setdefault(problem, []).append(item)
    for problem, checks in shared.items():
        try:
            pool = assignment.problem(problem).points - explicit.get(problem, 0.0)
        except KeyError:
            raise ValueError(f"a check names problem {problem}, which {assignment.name}'s table lacks") from None
        weights = [float(weight_of[id(item)]) for item in checks]
        total, given = sum(weights), 0.0
        for index, (item, weight) in enumerate(zip(checks, weights)):
            if index == len(checks) - 1:
                points = round(pool - given, 4)
            else:
                points = round(pool * weight / total, 4) if total else 0.0
            given += points
            item.add_marker(pytest.mark.points(points))
