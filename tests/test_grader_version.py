"""The kit's installed version in grade-all's grader version (grade_all.installed_version): kept per
machine under the metadata it is read from, never stale.  Each case runs in a fresh interpreter
with a cache folder of its own (whether importlib.metadata was imported is the point)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys
sys.path[0:0] = json.loads(sys.argv[1])
from autograder.grading.grade_all import installed_version
version = installed_version()
print(json.dumps([version, "importlib.metadata" in sys.modules]))
"""


def _probe(cache: Path, extra: list[str]) -> tuple[str, bool]:
    env = {**os.environ, "AUTOGRADER_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(extra)], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    version, imported = json.loads(done.stdout)
    return version, imported


def _kit_version(extra: list[str]) -> str:
    code = "import json, sys; sys.path[0:0] = json.loads(sys.argv[1]); from autograder.assignment import kit_version; print(kit_version())"
    return subprocess.run([sys.executable, "-c", code, json.dumps(extra)], capture_output=True, text=True, cwd=REPO,
                          timeout=60, check=True).stdout.strip()


def test_the_installed_version_is_kit_versions_and_kept(tmp_path):
    first = _probe(tmp_path / "cache", [])
    assert first == (_kit_version([]), True)                  # looked up (importlib.metadata) ...
    assert _probe(tmp_path / "cache", []) == (first[0], False)      # ... then kept: not imported


def test_another_install_of_the_kit_on_the_path_is_another_version(tmp_path):
    """A distribution of the kit's name earlier on sys.path is what importlib.metadata reads; so is
    its version once changed in place (pip rewrites it; an editable install's egg-info too)."""
    site = tmp_path / "site"
    meta = site / "Yahtzee.Kit-7.0.dist-info" / "METADATA"
    meta.parent.mkdir(parents=True)
    meta.write_text("Metadata-Version: 2.1\nName: yahtzee-kit\nVersion: 7.0\n", encoding="utf-8")
    cache = tmp_path / "cache"
    own = _probe(cache, [])
    assert _probe(cache, [str(site)]) == ("7.0", True) == (_kit_version([str(site)]), True)
    assert _probe(cache, [str(site)]) == ("7.0", False)
    meta.write_text("Metadata-Version: 2.1\nName: yahtzee-kit\nVersion: 7.0.1\n", encoding="utf-8")
    assert _probe(cache, [str(site)]) == ("7.0.1", True)
    meta.parent.rename(site / "yahtzee_kit-7.0.1.dist-info")
    assert _probe(cache, [str(site)]) == ("7.0.1", True)
    assert _probe(cache, []) == (own[0], False)             # (the kit's own: kept, still)
