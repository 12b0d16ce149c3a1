"""Log and data outputs of real programs (benchmarks/capture_sweep_logs.py): what an agent reads
them for survives byte-exact, and the rest still folds."""

from __future__ import annotations

import re

from .conftest import fixture_case, seen_by_agent

FAILED_REQUEST_RE = re.compile(r'"([A-Z]+ \S*) HTTP/[\d.]+" ([45]\d\d) ')
MORE_RE = re.compile(r"^\[thresher: (\d+) more lines? like the entry above")


def test_access_log_keeps_each_kind_of_failed_request():
    """An nginx access log over budget: the 200s fold by template, but each kind of 4xx/5xx
    request (a missing file, a dead upstream, a denied path, a wrong method) keeps a verbatim
    line, and is never counted into a run of successful requests."""
    case = fixture_case("log-sweep-nginx-access")
    out = seen_by_agent(case).splitlines()
    kinds: dict[str, list[str]] = {}
    for line in case["stdout"].splitlines():
        m = FAILED_REQUEST_RE.search(line)
        if m:
            kinds.setdefault(re.sub(r"\d+", "#", m.group(1)) + " " + m.group(2), []).append(line)
    assert len(kinds) >= 4
    for kind, lines in kinds.items():
        shown = [ln for ln in out if ln in lines]
        assert shown, kind
        # a failed request's summary line counts only requests of its own kind
        for i, ln in enumerate(out[:-1]):
            if ln in lines and MORE_RE.match(out[i + 1]):
                assert int(MORE_RE.match(out[i + 1]).group(1)) <= len(lines) - 1
    assert case["stdout"].splitlines()[-1] in out
    assert len("\n".join(out)) < len(case["stdout"]) / 5
