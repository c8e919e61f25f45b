"""The code that runs INSIDE the sandboxed child process (stdlib only), in parts by job.

The grader (sandbox.py) never lets the child import these files: `source()` joins the parts, in
PARTS order, into ONE program text (each part's relative imports dropped: they only tell readers
and linters where a name comes from; in the sandbox all parts share one namespace), the grader
compiles it once per process and sends the marshalled code through the child's stdin to
`python -s -S -P -B -c <bootstrap>`, so the child reads no repo file.  Protocol: after the code
comes one JSON config line (its length first, as 16 bytes, and after it the raw bytes it names,
"blobs": the source, the reference's marshalled code); then one JSON request line per run (a batch: its message, then one line
per request, which the zygote sends on to a request process as it is, with the nonce and run folder
added at its end).  Everything the child says goes, as JSON lines, to a dedicated result fd
(argv[1]), never to the student's stdout: one line per request, the zygote's own keys and then the
request process's answer as "result" (held up to 2 ms in a batch, so the grader wakes once for several).

Process tree as root:   grader -> outer (root; unshares, mounts, waits)
                                  -> zygote (pid 1 of a new pid namespace, sandbox uid)
                                     -> a fresh runner (new while unclean), one shared worker.
In a grading session the outer process is a fork of the grader's template (root, harness
loaded and the request patches installed, never sees a config: entry.template_main) instead of a
new interpreter; from there on the same, and the zygote adopts the template's clean-state snapshot.
A student's lives (its own sandbox, its substitution variants) are forks of one student root
instead (entry.root_main: a fork of the template that built the minimal root; its first life
compiles the source for the others, entry.student_code), each forked straight as the pid 1 of a new pid namespace (no outer process:
grader -> template -> student root -> zygote), which then makes its own mount/net/ipc
namespaces, tmpfs, uid, seccomp.
Without root:           grader -> zygote (child subreaper) -> forks.
The zygote never runs student code: it compiles the source once and forks.  Fresh
requests run in a "fresh runner" fork that executes the compiled code anew for each of them and
serves the next one only while it stays clean (clean.py; else a new fork); fresh=False requests
run in a long-lived "shared worker" fork that imports the module once, or in the fresh runner
itself when it is still clean as the first shared call comes (Zygote.runner_as_worker: a batch
sends its fresh requests first).

The parts: ../scripted.py (the scripted input and dice every runtime shares: engine/scripted.py),
../nearby.py (the did-you-mean every runtime shares),
base (imports, limits, captured builtins, control-flow exceptions), values (student values -> JSON
data), errors (exceptions -> dicts, compiling), lines (line I/O on fds), draws (a request's draws the
dice do not answer, the same in every run), run (one request: output,
scripted input, dice, timer, result), targets (what a call calls: functions, methods of the
student's classes, the reference's substitutes), clock (the clock student code reads: the request's own,
the same in every run), patches (stdio, input, exit, random, entropy, the clock), audit (what
student code tried), identities (the items of the lists and sets the clean-state check watches,
read by identity), versions (dicts' version tags, read for it), clean (the fresh runner's
clean-state check), proctree (children, kill, reap), worker (request processes), answers (the zygote's handle on a request process, reading its
answer lines), zygote (forks, the request plan, its lines to the grader), isolation (namespaces, root,
uid, seccomp), warm (the request path run in the template on constant requests before its snapshot),
entry (main, sandbox_main, template_main).  A name is defined in exactly one part (tests check it).
"""

from __future__ import annotations

from pathlib import Path

PARTS = ("../scripted", "../nearby", "base", "values", "errors", "lines", "endless", "draws", "run", "targets", "clock", "patches", "audit", "identities",
         "versions", "clean", "proctree", "worker", "answers", "zygote", "isolation", "warm", "entry")
HERE = Path(__file__).resolve().parent


def part_files() -> list[Path]:
    return [HERE.parent / f"{part[3:]}.py" if part.startswith("../") else HERE / f"{part}.py" for part in PARTS]


def source() -> str:
    """The harness as one program text: the parts in order, without their relative imports
    (`from .part import a, b` on one line or in parentheses; line-based: an ast.parse of every
    part doubled the grader's once-per-process cost of ~13 ms)."""
    chunks = []
    for path in part_files():
        kept, skipping = [], False
        for line in path.read_text().splitlines(keepends=True):
            if skipping:
                skipping = ")" not in line
            elif line.startswith("from ."):
                skipping = "(" in line and ")" not in line
            else:
                kept.append(line)
        chunks.append(f"# ---- harness/{path.name}\n" + "".join(kept))
    return "".join(chunks)
