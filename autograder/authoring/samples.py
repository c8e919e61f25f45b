"""An assignment's sample class, from its samples.toml: programs as edits of the reference.

Each ``[[sample]]`` is one file of the class folder: the reference with its module docstring
replaced by ``header`` (``{author}`` filled in) and the find/replace ``edits`` applied; or
``base = "starter"`` (the starter generated from the reference, as handed out, then its own
``header`` and ``edits`` if it has any); or a ``file`` of the
assignment's folder (a program that is not an edit, a notebook); or a literal ``text``.  ``path``
is its place in the class folder (default ``<name>.py``).  ``view`` names the repository folder
that `python -m autograder build` keeps in step (Yahtzee's ``samples/class``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path, PurePosixPath

from ..assignment import Assignment
from .edits import EditError, apply_edits

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class SampleError(ValueError):
    """samples.toml names something that cannot be made (a bad edit, a missing file, a bad path)."""


def load(spec: Assignment) -> dict:
    """The parsed samples.toml of SPEC ({} when it has none)."""
    if not spec.samples.is_file():
        return {}
    return tomllib.loads(spec.samples.read_text(encoding="utf-8"))


def view(spec: Assignment) -> Path | None:
    """The repository folder `build` writes the sample class into, or None."""
    folder = load(spec).get("view")
    return spec.views / folder if folder else None


def replace_docstring(text: str, header: str) -> str:
    """TEXT with the body of its module docstring replaced by HEADER (kept as is without one)."""
    tree = ast.parse(text)
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return text
    lines = text.splitlines(keepends=True)
    end = first.end_lineno or first.lineno
    return f'"""{header}"""\n' + "".join(lines[end:])


def _safe_path(entry: dict) -> str:
    path = PurePosixPath(entry.get("path") or f"{entry['name']}.py")
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise SampleError(f"sample {entry['name']}: path {str(path)!r} must stay inside the class folder")
    return path.as_posix()


def sample_files(spec: Assignment) -> dict[str, bytes]:
    """Class-folder path -> content of every sample of SPEC (SampleError on a bad entry)."""
    from .build import generate_starter

    data = load(spec)
    reference = spec.reference.read_text(encoding="utf-8")
    files: dict[str, bytes] = {}
    for entry in data.get("sample", []):
        name = entry["name"]
        path = _safe_path(entry)
        if path in files:
            raise SampleError(f"sample {name}: a second sample at {path}")
        if "file" in entry:
            source = spec.root / entry["file"]
            if not source.is_file():
                raise SampleError(f"sample {name}: {entry['file']} does not exist in {spec.root.name}/")
            files[path] = source.read_bytes()
            continue
        if "text" in entry:
            files[path] = entry["text"].encode("utf-8")
            continue
        starter = entry.get("base") == "starter"
        text = generate_starter(reference, spec) if starter else reference
        header = entry.get("header", None if starter else data.get("header"))   # the starter as handed out
        if header is not None:
            text = replace_docstring(text, header.format(author=entry.get("author", name)))
        try:
            text = apply_edits(text, entry.get("edits", []), f"{spec.name}'s reference")
        except EditError as err:
            raise SampleError(f"sample {name}: {err}") from None
        files[path] = text.encode("utf-8")
    return files


def write_class(spec: Assignment, folder: Path) -> list[Path]:
    """Write SPEC's sample class into FOLDER (created); return the files written."""
    written = []
    for relative, content in sample_files(spec).items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        written.append(target)
    return written
