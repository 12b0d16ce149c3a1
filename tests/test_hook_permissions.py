"""The permission matcher behind the hook: a superset of Claude Code's documented Bash matching.

Rows from the "Wildcard patterns" table of https://code.claude.com/docs/en/permissions: every
documented match must be a "may match" (else a deny rule could be dodged); documented non-matches
that share no word-suffix with the pattern stay non-matches (else nothing would ever be wrapped).
"""

from __future__ import annotations

import pytest

from thresher.integrations.permissions import (Unknown, bash_specs, certain_prompt_command,
                                               may_match)

DOCUMENTED = [  # rule, commands it matches, commands it does not
    ("npm run build", ["npm run build"], ["npm run build --watch"]),
    ("npm run *", ["npm run build", "npm run test --watch", "npm run"], ["npm install"]),
    ("git log * main", ["git log --oneline main", "git log -5 main"], ["git log main"]),
    ("git * main", ["git merge main", "git push origin main"], ["git log"]),
    ("* --version", ["node --version"], ["node -v"]),
    ("ls *", ["ls -la", "ls"], ["lsof"]),
    ("ls*", ["ls -la", "lsof"], []),
    ("ls:*", ["ls -la", "ls"], ["lsof"]),
]


@pytest.mark.parametrize("rule, yes, no", DOCUMENTED)
def test_documented_matches_are_may_matches(rule, yes, no):
    for command in yes:
        assert may_match([rule], [command], {}), (rule, command)
    for command in no:
        assert not may_match([rule], [command], {}), (rule, command)


def test_matching_looks_past_assignments_wrappers_and_into_the_line():
    assert may_match(["rm *"], ["FOO=bar rm -rf tmp/"], {})
    assert may_match(["npm test *"], ["timeout 30 npm test"], {})
    assert may_match(["git push *"], ["THRESHER_SESSION=cc-1 thresher run -- git push origin"], {})


def test_rule_forms():
    assert bash_specs(["Bash", "Bash(*)", "Bash(ls *)", "Read(./x)", "WebFetch"], "deny") == \
        [None, None, "ls *"]
    assert bash_specs(["*", "B*", "mcp__*"], "ask") == [None, None]
    assert bash_specs(["*"], "allow") == []  # unanchored allow globs are skipped by Claude Code
    with pytest.raises(Unknown):
        bash_specs(["Bash(ls *"], "deny")


def test_parameter_rules_compare_the_tool_input():
    assert may_match(["run_in_background:true"], ["pytest"], {"run_in_background": True})
    assert not may_match(["run_in_background:true"], ["pytest"], {"run_in_background": False})


@pytest.mark.parametrize("real, certain", [
    ("pytest -q", True), ("cargo test", True), ("npm install", True), ("python -m pytest -x", True),
    ("thresher read x", True), ("git status", False), ("ls -la", False), ("cargo tree", False),
    ("docker ps", False), ("python script.py", False), ("", False),
])
def test_certainly_not_read_only(real, certain):
    assert certain_prompt_command(real) is certain
