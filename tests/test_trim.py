"""trim on a real enumeration: head, the middle rows and tail, within the line budget."""

from __future__ import annotations

from thresher.stages.emit import trim

from .conftest import fixture_case
from .distill_util import stage


def test_trim_keeps_the_middle_rows_and_meets_the_line_budget():
    """A row at the middle of a long listing (``dpkg -l``, five header lines) stays with the head
    and the tail, and the view still holds no more lines than the budget."""
    lines = fixture_case("unseen-dpkg-l")["stdout"].splitlines()
    view = stage(trim, "TrimParams", "\n".join(lines) + "\n", max_lines=60, max_tokens=8000)
    assert view is not None and len(view.lines) <= 60
    rows = [s for s in lines if s.startswith("ii ")]
    for s in (lines[0], rows[len(rows) // 2], lines[len(lines) // 2], lines[-1]):
        assert s in view.lines
