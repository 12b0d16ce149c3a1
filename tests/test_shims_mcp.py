"""PATH shims run the real program through `thresher run` (past their own folder, never into each
other), and `thresher mcp` serves its tools over stdio to the official SDK's client (limits:
tests/test_mcp_limits.py).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

VENV_BIN = os.path.dirname(sys.executable)


def th(*args, **kw):
    """Run ``thresher ARGS``."""
    return subprocess.run([sys.executable, "-m", "thresher", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def events(command: str) -> int:
    """How many savings events `thresher run` booked for ``command`` (proof it ran)."""
    path = os.path.join(os.environ["THRESHER_HOME"], "thresher.db")
    if not os.path.exists(path):
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM events WHERE command LIKE ?",
                          (f"%{command}",)).fetchone()[0]


def sh(command: str, path: str, **kw) -> subprocess.CompletedProcess:
    """``/bin/sh -c command`` with PATH set to ``path``."""
    env = {**os.environ, "PATH": path, **kw.pop("env", {})}
    return subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, env=env,
                          timeout=60, **kw)


def test_shim_runs_the_real_git_through_thresher(tmp_path):
    shims = tmp_path / "shims"
    out = th("shims", "install", str(shims), "git")
    assert out.returncode == 0 and (shims / "git").exists()
    real = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    got = sh("git --version", f"{shims}:{os.environ['PATH']}")
    assert (got.returncode, got.stdout) == (0, real)
    assert events("git --version") == 1
    bad = sh("git no-such-subcommand", f"{shims}:{os.environ['PATH']}")
    direct = subprocess.run(["git", "no-such-subcommand"], capture_output=True, text=True)
    assert bad.returncode == direct.returncode != 0 and bad.stderr == direct.stderr


def test_two_shim_folders_never_call_each_other_and_nested_tools_run_untouched(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    th("shims", "install", str(a), "git")
    th("shims", "install", str(b), "git")
    got = sh("git --version", f"{a}:{b}:{os.environ['PATH']}")
    assert got.returncode == 0 and got.stdout.startswith("git version")
    assert events("git --version") == 1
    nested = sh("git --version", f"{a}:{os.environ['PATH']}", env={"THRESHER_SHIMMED": "1"})
    assert nested.returncode == 0 and events("git --version") == 1  # no second thresher run


def test_no_real_program_is_127_with_a_reason(tmp_path):
    shims = tmp_path / "shims"
    th("shims", "install", str(shims), "git")
    got = subprocess.run([str(shims / "git"), "--version"], capture_output=True, text=True,
                         env={**os.environ, "PATH": str(shims)})
    assert got.returncode == 127 and "found no real git" in got.stderr


def test_remove_deletes_only_shims_and_install_never_overwrites(tmp_path):
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "mine").write_text("#!/bin/sh\necho mine\n")
    (shims / "cargo").write_text("#!/bin/sh\necho not ours\n")
    out = th("shims", "install", str(shims), "git", "cargo")
    assert out.returncode == 1 and "not a thresher shim" in out.stderr
    assert (shims / "cargo").read_text() == "#!/bin/sh\necho not ours\n"
    th("shims", "install", str(shims), "git", "make")
    out = th("shims", "remove", str(shims))
    assert out.returncode == 0 and "removed 2 shims" in out.stdout
    assert sorted(os.listdir(shims)) == ["cargo", "mine"]


def test_resolve_in_python_agrees_with_the_shim(tmp_path):
    from thresher.integrations.shims import resolve
    shims = tmp_path / "shims"
    th("shims", "install", str(shims), "git")
    path = f"{shims}:{os.environ['PATH']}"
    found = resolve(str(shims), "git", path)
    shown = sh("command -v git >/dev/null; git --version", path)
    assert found and os.path.basename(found) == "git" and shown.returncode == 0
    assert resolve(str(shims), "git", str(shims)) is None


mcp = pytest.importorskip("mcp")


def test_mcp_over_stdio_lists_and_calls_each_tool(tmp_path):
    import anyio
    from mcp import Client, StdioServerParameters
    big = tmp_path / "big.py"
    big.write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300)))
    (tmp_path / "small.txt").write_text("alpha\nbeta\n")
    env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ["PATH"]}

    async def session():
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "thresher", "mcp", "--allow-run", "all"],
                                       env=env, cwd=str(tmp_path))
        with anyio.fail_after(120):
            async with Client(params) as client:
                names = sorted(t.name for t in (await client.list_tools()).tools)
                calls = {}
                for name, args in (("thresher_read", {"path": str(big)}),
                                   ("thresher_read", {"path": str(tmp_path / "small.txt")}),
                                   ("thresher_run", {"command": "git --version && exit 3"}),
                                   ("thresher_gain", {})):
                    res = await client.call_tool(name, args)
                    calls.setdefault(name, []).append("".join(c.text for c in res.content))
                footer = calls["thresher_read"][0].rstrip().splitlines()[-1]
                handle = footer.split("thresher expand ")[1].split()[0]
                res = await client.call_tool("thresher_expand", {"handle": handle, "lines": "1-2"})
                calls["thresher_expand"] = ["".join(c.text for c in res.content)]
                return names, calls
    names, calls = anyio.run(session)
    assert names == ["thresher_expand", "thresher_gain", "thresher_read", "thresher_run"]
    outline, small = calls["thresher_read"]
    assert outline.startswith("def f0(x):\n") and "lines omitted · thresher expand" in outline
    assert len(outline) < len(big.read_text()) and small == "alpha\nbeta\n"
    assert calls["thresher_expand"] == ["def f0(x):\n    return x + 0\n"]
    assert calls["thresher_run"][0].startswith("git version") and \
        calls["thresher_run"][0].endswith("[exit status 3]\n")
    assert "thresher gain:" in calls["thresher_gain"][0]


def test_mcp_surface_tokens_is_small_and_counted_both_ways():
    from thresher.integrations.mcp_run import RunPolicy
    from thresher.integrations.mcp_server import Config, build, surface_text, surface_tokens
    size = surface_tokens()
    assert size["tools"] == 3 and 0 < size["estimate"] < 1000  # thresher_run is off by default
    assert surface_tokens(build(Config(run=RunPolicy("all"))))["tools"] == 4
    from thresher.dataflow.tokens import estimate
    assert size["estimate"] == estimate(surface_text())
    if size["cl100k"] is not None:
        assert 0 < size["cl100k"] < 1000
