"""A lent check confirmed (lent.py): its row, withheld, run once more where the later stages are
the student's own; the same text there is shown whole.  GradingPlugin's mixin: it runs checks, so
it needs pytest, which lent.py (imported with every Program) must not load."""

from __future__ import annotations

import pytest

from .feedback import Fail
from .instage import run_again
from .lent import ALL_OWN, later_held, own_later

# Whether a confirming run tries the student's own sandbox first (tests turn it off to compare).
OWN_FIRST = True


class Confirm:
    """GradingPlugin's confirming runs of lent checks (a mixin: the state is the plugin's)."""

    def confirm_lent(self, items, light: list, watched: bool) -> int:
        """Each row whose text was withheld (self._lent_rows: (row, check, its own text, hint)) run
        once more with the later stages the student's own; the rows whose run says the same text
        get it back.  Returns how many did."""
        pending, self._lent_rows = self._lent_rows, []
        student = self._student
        if not pending or student is None or self.load_failure:
            return 0
        where = self._retry_index(items, light)
        reference = getattr(self._reference, "_source", None) or ""
        saved = student._memo, student.lent_memos, student.substitute, student.own_later, student.item
        shown, own_first = 0, OWN_FIRST
        try:
            for result, check, text, hint in pending:
                found = where.get(check.nodeid)
                if found is None or check.nodeid in student.ran_out:
                    continue                # (an endless loop is not waited out twice)
                # First in the student's own sandbox (ALL_OWN: no life to start); beside the earlier
                # stages' reference only when its own functions say something else there (an earlier
                # stage's bug shows in the text).  A run out of time there (its own earlier stage's
                # endless loop, say) is not held against the row, and no later row tries its own
                # sandbox first: at most one such wait a grade.
                again = None
                for own in ((ALL_OWN, None) if own_first else (None,)):
                    student._memo, student.lent_memos = {}, {}      # (a game played beside the reference: not read again)
                    student.own_later = own or own_later(self.assignment, check.stage, reference)
                    again = self._confirming_run(found[0], found[1], check, watched)
                    if again is not None and again == (text, hint):
                        break
                    if own is ALL_OWN and check.nodeid in student.ran_out:
                        student.ran_out.discard(check.nodeid)
                        own_first = False
                if again is not None and again == (text, hint):
                    result.output, result.hint = text, hint
                    shown += 1
        finally:
            student._memo, student.lent_memos, student.substitute, student.own_later, student.item = saved
        return shown

    def _confirming_run(self, item, call, check, watched: bool) -> tuple[str, str] | None:
        """ITEM run once more: (its row's text, hint) as _record would make them, or None (passed,
        ran out of time, a grader fault, or lent beside a later stage again)."""
        student = self._student
        before = set(student.lent_checks.get(check.nodeid, ()))
        student.lent_checks[check.nodeid] = set()
        try:
            exc = run_again(self, call, check, watched)
        finally:
            again = student.lent_checks.get(check.nodeid, set())
            student.lent_checks[check.nodeid] = before
        if exc is None or later_held(self.assignment, check.stage, again):
            return None
        if isinstance(exc, Fail):
            return self._fail_text(exc, check.hidden)
        if isinstance(exc, pytest.skip.Exception):
            return f"Skipped: {exc.msg}", ""
        return None
