"""Two grade-all outputs equal but for times (measurement only; nothing imports it).

    python benchmarks/floor/batch_outputs_equal.py OUT_A OUT_B

The gradebook's rows (every column but id, times, grader version and source; the report's and
the tests' JSON with their times blanked), every CSV, grades.json (times and grader version
blanked), every feedback file (.md, .txt, .html, the strategy plot) and report.html (its time
stamps and its table of times blanked; its SVG charts compared byte for byte).  Prints the first
difference of each file that differs, then "SAME" or the count of differences.
"""

from __future__ import annotations

import difflib
import json
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any

STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}")
TIMES = {"wall_time", "cpu_time", "graded_at", "execution_time", "elapsed"}
REPORT_TIMES = (r"\d+\.\d+ s", r'hide-narrow">[\d.]+<', r"generated \d{4}-\d\d-\d\d \d\d:\d\d",
                r'(\(s\)</td>)(<td class="num">[\d.]+</td>)+', r"yahtzee-kit[^<\s]*|\d+\.\d+\.\d+\+[0-9a-f]{12}")


def scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("T" if k in TIMES else scrub(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def rows(out: Path) -> list[dict[str, Any]]:
    db = sqlite3.connect(out / "gradebook.sqlite")
    cursor = db.execute("SELECT * FROM grades ORDER BY submission_id")
    names = [d[0] for d in cursor.description]
    found = []
    for values in cursor:
        row = dict(zip(names, values))
        for name in ("id", "wall_time", "cpu_time", "graded_at", "grader_version", "source"):
            row.pop(name)
        row["report"], row["tests"] = scrub(json.loads(row["report"])), scrub(json.loads(row["tests"]))
        found.append(row)
    db.close()
    return found


def files(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if p.is_file() and "logs" not in p.parts and not p.name.startswith("gradebook.sqlite"))


def comparable(name: str, data: bytes) -> Any:
    if name == "grades.json":
        summary = scrub(json.loads(data))
        for student in summary["students"]:
            student.pop("grader_version", None)
        return summary
    if not name.endswith((".csv", ".html", ".md", ".txt")):
        return data
    text = STAMP.sub("T", data.decode())
    if name == "report.html":
        for pattern in REPORT_TIMES:
            text = re.sub(pattern, "S", text)
    return text


def main() -> None:
    a, b = Path(sys.argv[1]), Path(sys.argv[2])
    bad = 0
    rows_a, rows_b = rows(a), rows(b)
    if rows_a != rows_b:
        bad += 1
        print("gradebook rows differ", len(rows_a), len(rows_b))
        for x, y in zip(rows_a, rows_b):
            if x != y:
                print(" first:", x["submission_id"], [k for k in x if x[k] != y.get(k)])
                break
    names_a, names_b = files(a), files(b)
    if names_a != names_b:
        bad += 1
        print("file lists differ", set(names_a) ^ set(names_b))
    common = sorted(set(names_a) & set(names_b))
    for name in common:
        x, y = comparable(name, (a / name).read_bytes()), comparable(name, (b / name).read_bytes())
        if x != y:
            bad += 1
            print("differs:", name)
            if isinstance(x, str):
                print("".join(list(difflib.unified_diff(x.splitlines(True), y.splitlines(True), n=0))[:8])[:1500])
    print(f"compared {len(rows_a)} rows, {len(common)} files: {'SAME' if not bad else f'{bad} DIFFERENCES'}")


if __name__ == "__main__":
    main()
