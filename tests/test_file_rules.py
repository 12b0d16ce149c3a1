"""The Read/Edit rule matcher behind the hook: the documented path forms, over-approximated.

Forms from https://code.claude.com/docs/en/permissions ("Read and Edit"): ``//abs`` from the
filesystem root, ``~/p`` from HOME, ``/p`` from the settings file's folder, ``p``/``./p`` from the
current folder, gitignore globs. A documented match must be a "may see"; paths that share nothing
with the pattern must stay clear (else nothing would ever be wrapped).
"""

from __future__ import annotations

import pytest

from thresher.integrations.file_rules import FilePolicy, file_specs, may_refuse, pattern_may_see
from thresher.shell.lexer import tokenize
from thresher.shell.segments import split

CTX = {"cwd": "/proj", "home": "/home/me", "roots": ["/proj"]}


@pytest.mark.parametrize("spec, path, is_dir, seen", [
    ("//etc/shadow", "/etc/shadow", False, True),
    ("//etc/shadow", "/etc/hosts", False, False),
    ("~/.aws/**", "/home/me/.aws/credentials", False, True),
    ("~/.aws/**", "/home/me", True, True),                # a folder that holds it
    ("/secrets/**", "/proj/secrets/a.key", False, True),  # from the settings file's folder
    ("./.env", "/proj/.env", False, True),
    (".env", "/proj/config/.env", False, True),           # no slash: any depth
    (".env", "/proj/src/app.py", False, False),
    ("*.pem", "/proj/keys/server.pem", False, True),
    ("src/**/*.py", "/proj/src/a/b.py", False, True),
    ("src/**/*.py", "/proj/docs/a.md", False, False),
    ("./build/**", "/proj/build", True, True),
    (None, "/anything", False, True),                     # a bare Read rule
])
def test_documented_forms(spec, path, is_dir, seen):
    assert pattern_may_see(spec, path, is_dir, CTX) is seen


def test_rule_kinds():
    assert file_specs(["Read(./.env)", "Edit", "Bash(ls *)", "Write(/out/**)", "WebFetch"]) == \
        ["./.env", None, "/out/**"]


def _seg(text):
    (seg,) = split(tokenize(text))
    return seg


def test_what_a_segment_touches(tmp_path):
    policy = FilePolicy(["./.env"], False, [str(tmp_path)])
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    env = {"HOME": str(tmp_path / "home")}
    assert may_refuse(policy, _seg("cat .env"), str(tmp_path), env)
    assert may_refuse(policy, _seg("cat --file=.env"), str(tmp_path), env)
    assert may_refuse(policy, _seg("grep -rn KEY"), str(tmp_path), env)        # reads the folder
    assert may_refuse(policy, _seg("cat $FILE"), str(tmp_path), env)           # unknown path
    assert not may_refuse(policy, _seg("cat src/app.py"), str(tmp_path), env)
    outside = FilePolicy([], True, [str(tmp_path)])
    assert may_refuse(outside, _seg("cat /etc/hosts"), str(tmp_path), env)
    assert may_refuse(outside, _seg("cat ../other/x"), str(tmp_path), env)
    assert not may_refuse(outside, _seg("cat src/app.py"), str(tmp_path), env)
