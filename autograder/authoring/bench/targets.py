"""(f) every target of the speed issue, MET or NOT MET, with the figures of one run."""

from __future__ import annotations

# --- (f) targets ----------------------------------------------------------------------------------

def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("MET" if ok else "NOT MET")

TARGET_STEADY = 25.0            # grade-all --jobs 2, submissions/s once the workers are warm
TARGET_WHOLE = 15.0             # grade-all --jobs 2, submissions/s for the whole command (30 submissions)
TARGET_RATIO = 60.0             # ours (--jobs 2, honest class) / nbgrader autograde
TARGET_COLD_S = 0.5             # one whole `python -m autograder grade` process
TARGET_WARM_CPU_S = 0.060       # one four-stage grade in a warm worker, CPU of the whole process tree
TARGET_WORST_S = 20.0           # the slow-but-finite worst case, one submission
TARGET_FALSE_TIMEOUTS = 0       # honest gradings under load that lost a point to a timeout


def print_targets(single: dict, batch: dict[str, dict[int, dict]], nb: dict | None, worst: dict | None,
                  load: dict | None) -> list[tuple[str, bool | None]]:
    print("\n(f) targets (figures from this run)")
    lines: list[tuple[str, str, bool | None]] = []

    def add(target: str, figure: str | None, ok: bool | None) -> None:
        lines.append((target, figure if figure is not None else "not measured", ok if figure is not None else None))

    for which, label in (("honest", "honest class"), ("bench", "bench class (hostile sample)")):
        two = batch.get(which, {}).get(2)
        steady = two.get("steady") if two else None
        add(f"grade-all --jobs 2 steady state >= {TARGET_STEADY:g} submissions/s, {label}",
            f"{steady:.1f}/s" if steady else None, steady >= TARGET_STEADY if steady else None)
        add(f"grade-all --jobs 2 whole command >= {TARGET_WHOLE:g} submissions/s, {label}",
            f"{two['rate']:.1f}/s ({two['n']} submissions)" if two else None,
            two["rate"] >= TARGET_WHOLE if two else None)
    two = batch.get("honest", {}).get(2)
    label = f">= {TARGET_RATIO:g}x nbgrader autograde (honest class, --jobs 2)"
    if nb and not nb["equivalent"]:
        add(label, "nbgrader graded fewer stages", None)
    elif nb and two:
        ratio = two["rate"] / nb["student_rate"]
        add(label, f"{ratio:.1f}x ({two['rate']:.2f} vs {nb['student_rate']:.2f} students/s)", ratio >= TARGET_RATIO)
    else:
        add(label, None, None)
    cold = single.get("cli_wall")
    add(f"one cold `grade` process <= {TARGET_COLD_S:g} s", f"{cold:.2f} s" if cold else None,
        cold <= TARGET_COLD_S if cold else None)
    row = single.get("rows", {}).get("all")
    add(f"four-stage grade <= {TARGET_WARM_CPU_S * 1000:g} ms CPU in a warm worker",
        f"{row['warm_cpu'] * 1000:.0f} ms CPU ({row['warm_wall'] * 1000:.0f} ms wall)" if row else None,
        row["warm_cpu"] <= TARGET_WARM_CPU_S if row else None)
    add(f"slow-but-finite worst case <= {TARGET_WORST_S:g} s per submission",
        f"{worst['wall']:.1f} s" if worst else None, worst["wall"] <= TARGET_WORST_S if worst else None)
    add(f"false timeouts in {load['graded'] if load else 200} honest gradings under load "
        f"<= {TARGET_FALSE_TIMEOUTS}", f"{load['false']}" if load else None,
        load["false"] <= TARGET_FALSE_TIMEOUTS if load else None)
    width = max(len(t) for t, _, _ in lines)
    for target, figure, ok in lines:
        print(f"    {target:<{width}}  {figure:<36} {_verdict(ok)}")
    return [(t, ok) for t, _, ok in lines]


