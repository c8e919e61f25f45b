"""Notebook cells and nbgrader's release of a source notebook (generate_assignment, reproduced)."""

from __future__ import annotations

import copy
import hashlib
import json
import re

from autograder.assignment import Assignment
from autograder.authoring.build import relative

from .common import BEGIN_SOLUTION, CODE_STUB, GENERATE_COMMAND, KERNELSPEC, content_path
from .solution import replace_regions, stub_code


def _source_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _cell_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]", "-", name)[:64]


def markdown_cell(text: str, name: str) -> dict:
    return {"cell_type": "markdown", "id": _cell_id(name), "metadata": {},
            "source": _source_lines(text.strip("\n"))}


def code_cell(code: str, name: str, *, grade: bool = False, solution: bool = False, locked: bool = False,
              points: float | None = None) -> dict:
    metadata: dict = {}
    if grade or solution or locked:
        nbgrader = {"grade": grade, "grade_id": name, "locked": locked, "schema_version": 3,
                    "solution": solution, "task": False}
        if grade:
            nbgrader["points"] = points
        metadata["nbgrader"] = nbgrader
    return {"cell_type": "code", "execution_count": None, "id": _cell_id(name), "metadata": metadata,
            "outputs": [], "source": _source_lines(code.rstrip("\n"))}


def cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def new_notebook(cells: list[dict], assignment: Assignment, stage: int) -> dict:
    return {
        "cells": cells,
        "metadata": {
            "autograder": {"assignment": assignment.name, "stage": stage,
                           "generated_by": GENERATE_COMMAND,
                           "from": [relative(assignment.reference), relative(assignment.table),
                                    relative(content_path(assignment))]},
            "kernelspec": dict(KERNELSPEC),
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dumps(nb: dict) -> str:
    """The notebook as nbformat writes it (indent 1, sorted keys, a final newline)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"



def _is(cell: dict, key: str) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get(key, False))


def is_locked(cell: dict) -> bool:
    if "nbgrader" not in cell.get("metadata", {}) or _is(cell, "solution"):
        return False
    return _is(cell, "grade") or _is(cell, "locked")


def checksum(cell: dict) -> str:
    """nbgrader.utils.compute_checksum, reproduced."""
    md5 = hashlib.md5()
    md5.update(cell_source(cell).encode("utf-8"))
    md5.update(cell["cell_type"].encode("utf-8"))
    md5.update(str(_is(cell, "grade")).encode("utf-8"))
    md5.update(str(_is(cell, "solution")).encode("utf-8"))
    md5.update(str(is_locked(cell)).encode("utf-8"))
    md5.update(cell["metadata"]["nbgrader"]["grade_id"].encode("utf-8"))
    if _is(cell, "grade"):
        md5.update(str(float(cell["metadata"]["nbgrader"]["points"])).encode("utf-8"))
    return md5.hexdigest()


def release_notebook(source_nb: dict, answers: dict[str, str | None] | None = None) -> dict:
    """What ``nbgrader generate_assignment`` makes of SOURCE_NB: solutions stubbed, cells locked,
    outputs cleared, checksums computed.  With ANSWERS ({function: code or None}), fill each
    answer cell instead: None keeps the reference solution; absent functions stay stubs
    (used for sample submissions, which carry the release metadata like a real one)."""
    nb = copy.deepcopy(source_nb)
    for cell in nb["cells"]:
        meta = cell.setdefault("metadata", {})
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        text = cell_source(cell)
        if _is(cell, "solution"):
            name = _defined_function(text)
            if answers is not None and name in answers:
                text = replace_regions(text, answers[name]).rstrip("\n")
            else:
                text = stub_code(text) if BEGIN_SOLUTION in text else CODE_STUB
            cell["source"] = _source_lines(text)
        if _is(cell, "solution"):
            meta["deletable"] = False
        elif _is(cell, "grade") or is_locked(cell):
            meta["deletable"] = False
            meta["editable"] = False
        if "nbgrader" in meta and (_is(cell, "grade") or _is(cell, "solution") or is_locked(cell)):
            cell_for_sum = dict(cell, source=cell_source(cell))
            if answers is not None and _is(cell, "solution"):
                stubbed = copy.deepcopy(cell)        # a submission keeps the checksum of the released stub
                stubbed["source"] = stub_code(cell_source(_find_source_cell(source_nb, meta)))
                cell_for_sum = stubbed
            meta["nbgrader"]["checksum"] = checksum(cell_for_sum)
            meta["nbgrader"]["cell_type"] = cell["cell_type"]
    nb["metadata"].pop("celltoolbar", None)
    return nb


def _find_source_cell(nb: dict, meta: dict) -> dict:
    grade_id = meta["nbgrader"]["grade_id"]
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return cell
    raise KeyError(grade_id)


def _defined_function(code: str) -> str | None:
    match = re.search(r"^\s*(?:async\s+)?def\s+(\w+)", code, re.MULTILINE)
    return match[1] if match else None
