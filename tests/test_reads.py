"""The read-stub cache: a stub only to a reader that was delivered that exact content."""

from __future__ import annotations

from thresher.stores.reads import MAX_DIFF_LINES, ReadCache
from thresher.stores.sessions import drop_scope


def _file(tmp_path, n: int = 143, edit: dict | None = None) -> tuple[str, bytes]:
    lines = [f"line {i}: some source text" for i in range(n)]
    for i, text in (edit or {}).items():
        lines[i] = text
    content = ("\n".join(lines) + "\n").encode()
    path = tmp_path / "mod.py"
    path.write_bytes(content)
    return str(path), content


def test_second_read_of_an_unchanged_file_in_the_same_scope_is_a_stub(tmp_path):
    path, content = _file(tmp_path)
    cache = ReadCache()
    assert cache.read("s1", path, content).kind == "full"
    reply = cache.read("s1", path, content, shown_path="mod.py")
    assert reply.kind == "stub"
    assert reply.text == "[unchanged since you read it: mod.py, 143 lines · --fresh to re-read]"


def test_no_stub_to_a_scope_that_never_read_the_file(tmp_path):
    path, content = _file(tmp_path)
    cache = ReadCache()
    cache.read("s1", path, content)
    assert cache.check("s2", path, content).kind == "full"      # a new session
    assert cache.check("", path, content).kind == "full"        # no scope at all
    assert cache.check("s1", path + ".other", content).kind == "full"


def test_no_stub_across_subagents_or_to_the_parent(tmp_path):
    path, content = _file(tmp_path)
    cache = ReadCache()
    cache.read("s1/agent-a", path, content)
    assert cache.check("s1/agent-b", path, content).kind == "full"
    assert cache.check("s1", path, content).kind == "full"
    assert cache.check("s1/agent-a", path, content).kind == "stub"


def test_no_stub_after_compaction(tmp_path):
    path, content = _file(tmp_path)
    cache = ReadCache()
    cache.read("s1", path, content)
    drop_scope("s1")  # what the compaction hook does
    assert cache.read("s1", path, content).kind == "full"
    assert cache.read("s1", path, content).kind == "stub"


def test_fresh_always_reads_in_full(tmp_path):
    path, content = _file(tmp_path)
    cache = ReadCache()
    cache.read("s1", path, content)
    assert cache.read("s1", path, content, fresh=True).kind == "full"
    assert cache.read("s1", path, content).kind == "stub"


def test_an_edited_file_gives_the_diff_against_the_version_this_scope_saw(tmp_path):
    path, v1 = _file(tmp_path)
    cache = ReadCache()
    cache.read("s1", path, v1)
    _, v2 = _file(tmp_path, edit={10: "line 10: CHANGED"})
    cache.read("s2", path, v2)  # another reader saw v2 first
    _, v3 = _file(tmp_path, edit={10: "line 10: CHANGED", 100: "line 100: ALSO CHANGED"})
    for scope, removed in (("s1", "-line 10: some source text"), ("s2", "-line 100: some source text")):
        reply = cache.read(scope, path, v3, shown_path="mod.py")
        assert reply.kind == "diff", scope
        assert removed in reply.text.splitlines()
        assert reply.text.startswith("--- mod.py (as you read it)\n+++ mod.py (now)\n")
    assert cache.check("s1", path, v3).kind == "stub"  # the diff delivered the new version


def test_a_large_change_falls_back_to_full(tmp_path):
    path, v1 = _file(tmp_path, n=400)
    cache = ReadCache()
    cache.read("s1", path, v1)
    _, v2 = _file(tmp_path, n=400, edit={i: f"rewritten {i}" for i in range(MAX_DIFF_LINES)})
    reply = cache.read("s1", path, v2)
    assert reply.kind == "full" and reply.changed > MAX_DIFF_LINES


def test_a_partial_delivery_is_forgotten(tmp_path):
    path, content = _file(tmp_path)
    cache = ReadCache()
    cache.read("s1", path, content)
    cache.delivered("s1", path, content, complete=False)  # e.g. the reader got a trimmed view
    assert cache.check("s1", path, content).kind == "full"


def _read(path: str, *args: str, env: dict | None = None) -> str:
    import os
    import subprocess
    import sys
    res = subprocess.run([sys.executable, "-m", "thresher", "read", path, *args], capture_output=True,
                         env={**os.environ, "THRESHER_SESSION": "s1", **(env or {})})
    assert res.returncode == 0, res.stderr
    return res.stdout.decode()


def test_thresher_read_sends_stubs_and_diffs_only_to_the_reader_that_has_the_file(tmp_path):
    path, content = _file(tmp_path, n=40)
    assert _read(path, "--mode", "full") == content.decode()
    assert _read(path, "--mode", "full").startswith("[unchanged since you read it: ")
    assert _read(path, "--mode", "full", env={"THRESHER_AGENT": "sub"}) == content.decode()
    assert _read(path, "--mode", "full", "--fresh") == content.decode()
    _, edited = _file(tmp_path, n=40, edit={5: "line 5: EDITED"})
    diff = _read(path)
    assert "+line 5: EDITED" in diff and "-line 5: some source text" in diff
    drop_scope("s1")
    assert _read(path) == edited.decode()
