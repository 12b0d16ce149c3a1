"""Issue 16 mechanisms 5, 7, 11 on real everyday outputs captured by capture_everyday.py:
collapse is a fallback (numbers are the answer within budget), content modes reach their own
class's graph, and a big ``ls -l`` keeps the names of the rows that do not fit."""

from __future__ import annotations

import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.plan import content_member, load_plans
from thresher.dataflow.tokens import estimate
from thresher.filters import engine, runtime

from .conftest import fixture_case, seen_by_agent
from .distill_util import output_lines

NUMBER = re.compile(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{7,}|\d+(?:[.:,]\d+)*")


def _tokens(text: str) -> int:
    return estimate(text)


@pytest.mark.parametrize("case_id", ["everyday-time-runs-25", "everyday-vmstat-12",
                                     "everyday-openssl-speed"])
def test_rows_that_differ_in_their_numbers_stay_within_budget(case_id):
    """Within the budget nothing is folded: every timing row (the answer) comes back."""
    case = fixture_case(case_id)
    out = seen_by_agent(case)
    assert "similar lines folded" not in out
    for fact in case["must_keep"]:
        assert fact in out


def test_over_budget_fold_states_what_varied():
    """Over the budget the fold says, per varying number, the min and max of the folded rows."""
    case = fixture_case("everyday-time-runs-400")
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"])
    out = output_lines(res)
    src = case["stdout"].splitlines()
    folds = [s for s in out if "similar lines folded" in s]
    assert len(folds) == 1
    m = re.match(r"^\[thresher: (\d+) similar lines folded; numbers that vary: (.*)\]$", folds[0])
    assert m
    n = int(m[1])
    first = src.index(out[out.index(folds[0]) - 1])
    folded = src[first + 1:first + 1 + n]
    columns = list(zip(*(NUMBER.findall(s) for s in folded)))
    stated = dict(re.match(r"#(\d+) (.*)", part).groups() for part in m[2].split("; "))
    for k, values in enumerate(columns, 1):
        distinct = set(values)
        if len(distinct) == 1:
            assert str(k) not in stated
        elif len(distinct) > 3:
            nums = [float(v) for v in values]
            lo, hi = stated[str(k)].split("..")
            assert (float(lo), float(hi)) == (min(nums), max(nums))
        else:
            assert set(stated[str(k)].split(", ")) == distinct
    assert _tokens(res.text) * 5 < _tokens(case["stdout"])


CONTENT = ["everyday-git-show-rev-md", "everyday-unzip-p-csv", "everyday-tar-xO-py"]


@pytest.mark.parametrize("case_id", CONTENT)
def test_content_modes_reach_the_graph_of_the_file_they_print(case_id):
    """``git show REV:x.md`` → markdown, ``unzip -p x.zip a.csv`` → csv, ``tar -xO … a.py`` → code:
    the agent reads what ``cat`` of that file would show (facts kept, never larger)."""
    case = fixture_case(case_id)
    plans = load_plans()
    member = content_member(case["command"])
    assert plans.classify(case["command"]) == plans.classify(f"cat {member}") == case["class"]
    out = seen_by_agent(case)
    as_cat = seen_by_agent({**case, "command": f"cat {member}"})
    for fact in case["must_keep"]:
        assert fact in out
    # the same view but for the footer's follow-up (the member is no file here: expand, not read)
    assert abs(_tokens(out) - _tokens(as_cat)) <= 40 and _tokens(out) <= _tokens(case["stdout"])


def test_command_chosen_filters_decline_on_content_modes():
    """The shipped unzip and tar filters fire on their own chatter, never on printed content."""
    loaded = runtime.load(use_cache=False, warn=False)
    filters = loaded.filters
    assert engine.first_match(filters, "unzip data.zip")["name"] == "unzip"
    assert engine.first_match(filters, "tar -xzvf pkg.tgz")["name"] == "tar-verbose"
    for case_id in CONTENT:
        assert engine.first_match(filters, fixture_case(case_id)["command"]) is None
    for command in ("unzip -p data.zip", "tar -xvOzf pkg.tgz pkg/a.py"):
        assert content_member(command) is not None
        assert engine.first_match(filters, command) is None


LISTINGS = ["everyday-ls-la-share-doc", "everyday-ls-la-man3", "everyday-ls-la-site-packages",
            "everyday-ls-la-certs"]


def _name(row: str) -> str:
    name = row.split(None, 8)[8]
    return name.split(" -> ")[0] if row.startswith("l") else name


@pytest.mark.parametrize("case_id", LISTINGS)
def test_big_ls_keeps_rows_then_names(case_id):
    """Every row is shown byte-exact, or named in the counted line, or counted as not named;
    the listing never grows and a listing within budget passes whole."""
    case = fixture_case(case_id)
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"])
    src = case["stdout"].splitlines()
    out = output_lines(res)
    assert _tokens(res.text) <= _tokens(case["stdout"])
    if res.text == case["stdout"]:
        return
    rows = [s for s in src if re.match(r"^[-dlcbps]", s)]
    shown = set(out)
    dropped = [s for s in rows if s not in shown]
    lines = [s for s in out if "shown by name only: " in s]
    assert len(lines) == 1
    m = re.match(r"^\[thresher: (\d+) more entr(?:y|ies) shown by name only: (.*?)"
                 r"(?:; (\d+) more not named)?\]$", lines[0])
    assert m and int(m[1]) == len(dropped)
    names = m[2].split(" ")
    assert len(names) + int(m[3] or 0) == len(dropped)
    assert set(names) <= {_name(s) for s in dropped}
    assert all(s in shown for s in src if s.startswith("total "))


@pytest.mark.parametrize("command,member", [
    ("git show HEAD:README.md", "README.md"), ("git -C repo show v1.0:docs/index.html", "docs/index.html"),
    ("git cat-file -p main:pyproject.toml", "pyproject.toml"), ("unzip -p x.zip data.csv", "data.csv"),
    ("unzip -qc x.zip docs/README.md", "docs/README.md"), ("unzip -p x.zip", ""),
    ("tar -xOzf x.tgz pkg/setup.py", "pkg/setup.py"), ("tar --to-stdout -xf a.tar b.yaml", "b.yaml"),
    ("tar -xzf x.tgz -O pkg/a.json", "pkg/a.json"), ("zcat data.csv.gz", "data.csv"),
    ("gzip -dc notes.md.gz", "notes.md"),
    ("git show HEAD", None), ("git show --stat HEAD", None), ("unzip x.zip", None),
    ("unzip -l x.zip", None), ("tar -xzvf x.tgz", None), ("tar -tzf x.tgz", None),
    ("gzip -d a.csv.gz", None), ("cat a.csv", None),
])
def test_content_member_names_the_printed_file(command, member):
    """Content modes name the file they print ("" when unnamed); other commands are not one."""
    assert content_member(command) == member


def test_content_modes_classify_as_the_file_they_print():
    plans = load_plans()
    assert plans.classify("git show HEAD~1:src/app.py") == plans.classify("cat src/app.py") == "code"
    assert plans.classify("zcat /var/log/syslog.2.gz") == "log"
    assert plans.classify("git show HEAD") == "git-diff"


def test_a_lock_file_printed_by_a_content_mode_stays_byte_exact():
    """``git show REV:Cargo.lock`` is judged as ``cat Cargo.lock`` by the toml graph's Guard."""
    from thresher.dataflow.executor import initial_payload
    from thresher.stages.ingest import guard
    params = load_plans().plans["toml.default"]["nodes"]["guard"]["params"]
    lines = b"".join(b'[[package]]\nname = "p%d"\nversion = "1.0.%d"\n\n' % (i, i) for i in range(80))
    for command, kept in (("git show HEAD:Cargo.lock", True), ("cat Cargo.lock", True),
                          ("git show HEAD:Cargo.toml", False)):
        why = guard.verdict(initial_payload(lines, command=command), params)
        assert (why is not None and why.startswith("structured")) == kept, command
