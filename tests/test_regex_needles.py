"""Literal prefilters of regexes (dataflow/regex_needles.py): sound, so skipping a rule whose
needles are absent never changes a classification."""

from __future__ import annotations

import os
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thresher.dataflow.plan import builtin_dir, load_plans
from thresher.dataflow.regex_needles import needles

with open(os.path.join(builtin_dir(), "classify.yaml"), encoding="utf-8") as _fh:
    _TABLE = yaml.safe_load(_fh)
SHIPPED = [r["match"] for section in ("rules", "sniff") for r in _TABLE[section]]


@pytest.mark.parametrize("pattern", SHIPPED)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_match_of_a_shipped_rule_contains_one_of_its_needles(pattern, data):
    found = needles(pattern)
    if found is None:
        return
    text = data.draw(st.from_regex(pattern))
    assert re.search(pattern, text)
    assert any(n in text for n in found), (text, found)


@pytest.mark.parametrize("pattern, expected", [
    (r"(?:^|\s)(?:env|printenv)(?:\s|$)", ["env", "printenv"]),
    (r"(?m)^diff --git a/", ["diff --git a/"]),
    (r"\bcargo\s+(?:build|test)", ["cargo"]),
    (r"\A\s*[\[{]", None),              # no literal is required
    (r"(?:foo)?bar|baz", ["bar", "baz"]),
    (r"x*", None),
    (r"(?i)error", None),               # case-insensitive: an exact `in` would be wrong
    (r"(?i:error)|fatal", None),
])
def test_needles_of_small_patterns(pattern, expected):
    assert needles(pattern) == expected


def test_no_rule_is_skipped_for_a_command_it_matches():
    """The cached table classifies like the plain regexes, first match wins, on commands that
    exercise most rules (and on ones no rule names)."""
    plans = load_plans()
    rows = [(r["match"], r["class"]) for r in _TABLE["rules"]]
    commands = ["true", "ls -la", "git status", "git -C x log --oneline", "pytest -q tests",
                "python3 -m pytest -v", "cargo build", "npm run dev", "tail -f x.log",
                "cat README.md", "cat a.py", "kubectl logs pod", "docker compose up",
                "curl -s http://x", "printenv", "env", "rg foo", "find . -name x", "make -j4",
                "gcc -c a.c", "jq . x.json", "cat Cargo.lock", "sqlite3 -csv db q", "man -P cat ls",
                "diff -u a b", "pip install x", "apt-get install y", "echo hi", "ps aux",
                "go test ./...", "cat .env", "sudo cat /var/log/syslog", "yq . a.yaml"]
    for command in commands:
        want = next((c for rx, c in rows if re.search(rx, command)), "generic")
        assert plans.classify(command) == want, command
