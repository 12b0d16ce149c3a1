"""Permission modes x rule sets: the hooks never weaken a deny (or ask) rule, in any mode.

For every mode Claude Code has (default, acceptEdits, auto, plan, dontAsk, bypassPermissions) and
each rule set (a Bash deny, a Read deny, an Edit deny, an ask rule, a bare Bash allow), the lines a
rule is about are never rewritten (so the rule still meets them as written), a ``thresher run --``
line naming them is answered with the rule's own decision, and the PostToolUse answer for a
rule's line, were the host to run it, only ever replaces ``stdout``. The bare allow rule is the
one set where rewriting is expected, and only in the modes that keep broad allow rules.
"""

from __future__ import annotations

import pytest

from .hook_util import MODES, answer, fixture_stdout, payload, settings, updated_input

RULE_SETS = {  # name: (permissions, lines the rule is about, decision for `thresher run -- line`)
    "bash deny": ({"deny": ["Bash(git push:*)", "Bash(pytest:*)"]},
                  ["git push origin main", "pytest -q", "cd src && pytest -x"], "deny"),
    "read deny": ({"deny": ["Read(./.env)", "Read(./secrets/**)"]},
                  ["cat .env", "head -n 3 .env", "grep -rn KEY secrets", "grep -rn KEY .",
                   "tail -n 20 secrets/app.log"], None),
    "edit deny": ({"deny": ["Edit(./build/**)"]},
                  ["cargo build 2> build/err.log", "make 2>> build/make.log"], None),
    "ask": ({"ask": ["Bash(npm test:*)", "Bash(git log:*)"]},
            ["npm test", "git log -5", "cd web && npm test -- --ci"], "ask"),
}


def _check(session_env, mode, perms, line):
    settings(session_env["proj"], permissions=perms)
    data = payload("pre_bash", cwd=str(session_env["proj"]), permission_mode=mode, command=line)
    return answer(data, session_env["environ"])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rule_set", sorted(RULE_SETS))
def test_rules_are_never_weakened(session_env, mode, rule_set):
    perms, lines, verdict = RULE_SETS[rule_set]
    for line in lines:
        got = _check(session_env, mode, perms, line)
        assert got is None or "updatedInput" not in got["hookSpecificOutput"], (line, mode)
        if verdict:
            typed = _check(session_env, mode, perms, f"thresher run -- {line.split('&& ')[-1]}")
            assert typed["hookSpecificOutput"]["permissionDecision"] == verdict, (line, mode)


@pytest.mark.parametrize("mode", MODES)
def test_bare_bash_allow_rewrites_only_where_the_mode_keeps_it(session_env, mode):
    settings(session_env["proj"], permissions={"allow": ["Bash"]})
    data = payload("pre_bash", cwd=str(session_env["proj"]), permission_mode=mode,
                   command="git log -5")
    new = updated_input(data, session_env["environ"])
    if mode in ("default", "acceptEdits", "bypassPermissions"):
        assert new is not None and new.endswith("run -- git log -5")
    else:
        assert new is None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rule_set", sorted(RULE_SETS))
def test_post_answer_changes_only_the_output(session_env, mode, rule_set):
    """Were the host to run a rule's line (the user said yes), PostToolUse touches stdout only."""
    perms, _, _ = RULE_SETS[rule_set]
    settings(session_env["proj"], permissions=perms)
    raw = fixture_stdout("git-log-default-huge")
    data = payload("post_bash", cwd=str(session_env["proj"]), permission_mode=mode,
                   command="git log", stdout=raw, tool_use_id=f"toolu_{mode}_{rule_set}")
    pre = updated_input({**data, "hook_event_name": "PreToolUse"}, session_env["environ"])
    got = answer(data, session_env["environ"])
    if pre is not None:  # PreToolUse wrapped it (bypassPermissions): never compressed twice
        assert got is None
        return
    assert got is not None and set(got) == {"hookSpecificOutput"}
    out = got["hookSpecificOutput"]
    assert set(out) == {"hookEventName", "updatedToolOutput"}  # never a permission decision
    assert out["updatedToolOutput"]["stderr"] == "" and len(out["updatedToolOutput"]["stdout"]) \
        < len(raw)
