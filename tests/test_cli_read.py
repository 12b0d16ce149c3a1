"""``thresher read``: modes, ranges, anchors and drift checks, sections, archive round trip."""

from __future__ import annotations

import re

from thresher.cmd_read import anchor
from thresher.main import main

from .conftest import fixture_case


def write_case(tmp_path, case_id: str, name: str):
    path = tmp_path / name
    path.write_text(fixture_case(case_id)["stdout"], encoding="utf-8")
    return path


def run(capsysbinary, *argv) -> tuple[int, bytes, bytes]:
    code = main(["read", *map(str, argv)])
    out = capsysbinary.readouterr()
    return code, out.out, out.err


def test_full_and_lines_are_byte_exact(tmp_path, capsysbinary):
    path = write_case(tmp_path, "code-own-go-http-server", "server.go")
    raw = path.read_bytes()
    assert run(capsysbinary, path, "--mode", "full")[1] == raw
    want = b"".join(raw.splitlines(keepends=True)[9:20])
    assert run(capsysbinary, path, "--lines", "10-20")[1] == want
    assert run(capsysbinary, path, "--mode", "lines:10-20")[1] == want


def test_default_outline_names_the_follow_up_and_expand_restores(tmp_path, capsysbinary):
    path = write_case(tmp_path, "code-own-go-http-server", "server.go")
    code, out, _ = run(capsysbinary, path)
    text = out.decode()
    assert code == 0 and "func (srv *Server) ListenAndServe() error {" in text
    follow = re.search(r"read a range with: thresher read (\S+) --lines (\d+)-(\d+)\]", text)
    assert follow and follow.group(1) == str(path)
    handle = re.search(r"thresher expand ([0-9a-f]{12})", text.splitlines()[-1]).group(1)
    assert main(["expand", handle]) == 0
    assert capsysbinary.readouterr().out == path.read_bytes()
    a, b = int(follow.group(2)), int(follow.group(3))
    rng = run(capsysbinary, path, "--lines", f"{a}-{b}")[1]
    assert rng.count(b"\n") == b - a + 1


def test_signatures_mode_is_smaller_than_outline(tmp_path, capsysbinary):
    path = write_case(tmp_path, "code-own-java-arraylist", "ArrayList.java")
    outline = run(capsysbinary, path, "--mode", "outline")[1]
    sigs = run(capsysbinary, path, "--mode", "signatures")[1]
    assert len(sigs) < len(outline) < len(path.read_bytes())
    assert b"public boolean add(E e) {" in sigs


def test_anchored_lines_and_drift_check(tmp_path, capsysbinary):
    path = tmp_path / "a.py"
    path.write_text("x = 1\ny = 2\nz = 3\n")
    out = run(capsysbinary, path, "--mode", "anchored")[1].decode().splitlines()
    assert out[1] == f"2:{anchor(b'y = 2')}|y = 2"
    code, _, _ = run(capsysbinary, path, "--verify", out[1].split("|")[0])
    assert code == 0
    path.write_text("x = 1\ny = 20\nz = 3\n")
    code, msg, _ = run(capsysbinary, path, "--verify", out[1].split("|")[0])
    assert code == 1 and b"drift: line 2 is now 2:" in msg and b"y = 20" in msg
    part = run(capsysbinary, path, "--mode", "anchored", "--lines", "3-3")[1]
    assert part == f"3:{anchor(b'z = 3')}|z = 3\n".encode()


def test_markdown_section_and_missing_section(tmp_path, capsysbinary):
    path = write_case(tmp_path, "markdown-own-node-process", "process.md")
    code, out, _ = run(capsysbinary, path, "--mode", "section:process.argv")
    text = out.decode()
    assert code == 0 and "## `process.argv`" in text and "[thresher: section " in text
    code, _, err = run(capsysbinary, path, "--mode", "section:No Such Heading")
    assert code == 1 and b"headings:" in err and b"process.argv" in err


def test_bad_mode_and_range(tmp_path, capsysbinary):
    path = tmp_path / "a.txt"
    path.write_text("hello\n")
    assert run(capsysbinary, path, "--mode", "sideways")[0] == 2
    assert run(capsysbinary, path, "--lines", "9-3")[0] == 2
    assert run(capsysbinary, tmp_path / "missing.txt")[0] == 2
    assert run(capsysbinary, path)[1] == b"hello\n"
