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


def test_the_fast_selection_is_the_line_by_line_one():
    """With no summary line in the view, trim's selection from its critical indices (set union,
    in C) keeps exactly the lines its line-by-line rule keeps, whatever the sizes and tiers."""
    from hypothesis import given, settings, strategies as st

    from thresher.dataflow.executor import initial_payload
    from thresher.dataflow.payload import CRITICAL, IMPORTANT

    @settings(max_examples=300, deadline=None, derandomize=True)
    @given(st.lists(st.booleans(), min_size=1, max_size=60), st.integers(0, 70), st.integers(0, 70))
    def check(crit, head, tail):
        p = initial_payload("".join(f"l{i}\n" for i in range(len(crit))).encode())
        p = p.evolve(tiers=tuple(CRITICAL if c else IMPORTANT for c in crit))
        at = trim._critical(p)
        assert at == [i for i, c in enumerate(crit) if c]
        assert trim._select(p, head, tail, at) == trim._select(p, head, tail)
    check()
