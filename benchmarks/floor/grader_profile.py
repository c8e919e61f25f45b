"""Where the grader process's CPU of a warm four-stage grade goes, by file (cProfile's own time,
which inflates many small Python calls: read it as proportions of split.py's grader CPU).
Usage: .venv/bin/python bench/grader_profile.py [N]"""
import collections
import cProfile
import os
import pstats
import sys
import time

sys.path.insert(0, os.getcwd())
from autograder.engine.program import close_references  # noqa: E402
from autograder.engine.sandbox import template_scope  # noqa: E402
from autograder.grading.grade import grade, grade_stream  # noqa: E402

REF = "autograder/assignments/yahtzee/reference.py"
N = int(sys.argv[1]) if len(sys.argv) > 1 else 20
with template_scope():
    grade(REF, "yahtzee", stage="all")
    prof = cProfile.Profile(time.process_time)     # CPU, not wall (the waits on the sandbox)
    t0 = time.process_time()
    prof.enable()
    grade_stream((REF for _ in range(N)), lambda r: None, "yahtzee", "all")
    prof.disable()
    cpu = (time.process_time() - t0) / N * 1000
close_references()
st = pstats.Stats(prof)
by = collections.Counter()
for (file, _line, fn), (_cc, _nc, tt, _ct, _callers) in st.stats.items():
    f = file.replace(os.getcwd() + "/", "")
    if "site-packages/_pytest" in f or "site-packages/pluggy" in f:
        key = "pytest/pluggy"
    elif "autograder/assignments/" in f:
        key = "course suites (" + f.split("/")[2] + ")"
    elif f.startswith("autograder/"):
        key = f
    elif f == "~":
        key = "builtins: " + fn.split(" of ")[0][:50]
    else:
        key = "stdlib: " + os.path.basename(f)
    by[key] += tt
tot = sum(by.values())
print(f"grader CPU {cpu:.1f} ms a grade under cProfile (N={N}); own time by file, % of profiled:")
for k, v in by.most_common(28):
    print(f"  {100 * v / tot:5.1f} %  {k}")
