"""The raw input held as lines (issue 15, peak RSS): the engine decodes the input a chunk of lines at
a time, and an input its owner hands over (``Original(data, releasable=True)``, what ``thresher
pipe`` does) lets go of its bytes once they decode exactly; everything that needs them gets them
back byte for byte (the archive, a raw emission, the savings event's head)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from thresher.dataflow import executor
from thresher.dataflow.api import compress
from thresher.dataflow.executor import decode_lines, initial_payload
from thresher.dataflow.markers import FOOTER_RE
from thresher.dataflow.payload import RELEASE_ABOVE, Original, dirty_bytes
from thresher.dataflow.tokens import estimate_utf8
from thresher.stores.archive import _unpack
from thresher.stores.batch import PayloadWrites

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "pytest-fail-verbose.txt")


def _whole_split(raw: bytes) -> tuple[list[str], bool]:
    text = raw.decode("utf-8", "replace")
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines, text.endswith("\n")


SAMPLES = [b"", b"\n", b"a", b"a\n\nb", b"\n\n\n", "é\n😀 x\nlast".encode(),
           b"cut \xe2\x82\nthen \xff\xfe\nend\n", b"no newline at all " * 40,
           ("line %d \u2713\n" * 3).encode() * 50]


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
@pytest.mark.parametrize("raw", SAMPLES)
def test_decoding_a_chunk_of_lines_at_a_time_is_the_whole_texts_split(raw, chunk, monkeypatch):
    monkeypatch.setattr(executor, "DECODE_CHUNK", chunk)
    lines, trailing, exact = decode_lines(raw)
    assert (lines, trailing) == _whole_split(raw)
    assert exact == ("\ufffd" not in raw.decode("utf-8", "replace"))


def _big(text_line: str, n: int) -> bytes:
    return "".join(text_line % i for i in range(n)).encode()


@pytest.mark.parametrize("raw", [
    _big("plain ascii line %d with a few words\n", 40_000),
    _big("\x1b[31mred %d\x1b[0m é 😀\r\n", 60_000),
    _big("no final newline %d\n", 50_000) + b"tail without one",
])
def test_a_released_original_gives_the_bytes_back_exactly(raw):
    assert len(raw) > RELEASE_ABOVE
    orig = Original(raw, releasable=True)
    p = initial_payload(orig)
    assert not orig.held   # exact UTF-8 over the threshold: let go of
    assert p.raw == raw and orig.tobytes() == raw and b"".join(orig.chunks()) == raw
    assert p.raw_size == len(raw) and p.raw_head(1000) == raw[:1000]
    assert p.raw_head(len(raw) + 5) == raw
    # what the engine computes from the bytes was computed before they went
    assert p.raw_tokens() == estimate_utf8(raw)
    assert p.raw_dirty() == dirty_bytes(raw)


def test_bytes_that_do_not_decode_exactly_or_are_small_are_kept():
    bad = b"row \xff\xfe\n" * 200_000
    small = b"ok\n" * 1000
    for raw in (bad, small):
        orig = Original(raw, releasable=True)
        initial_payload(orig)
        assert orig.held and orig.tobytes() is raw
    kept = Original(b"x\n" * 1_000_000)          # not handed over: never released
    initial_payload(kept)
    assert kept.held


def test_the_engine_emits_and_archives_the_same_from_a_released_original():
    with open(EXAMPLE, "rb") as fh:
        unit = fh.read()
    raw = b"".join(unit.replace(b"test_calc.py", f"test_calc{i}.py".encode()) for i in range(400))
    assert len(raw) > RELEASE_ABOVE
    kw = {"command": "python -m pytest -v", "exit_code": 1}
    plain_writes, handed_writes = PayloadWrites(), PayloadWrites()
    plain = compress(raw, archive=plain_writes, **kw)
    orig = Original(raw, releasable=True)
    handed = compress(orig, archive=handed_writes, **kw)
    assert not orig.held
    assert handed.output == plain.output and handed.handle == plain.handle
    assert handed.emission.decision == "compressed" and handed.archived
    row = handed_writes.archive
    assert row is not None and row[0] == handed.handle and row[3] == len(raw)
    assert _unpack(row[1], row[2]) == raw     # packed a piece at a time, unpacks byte-exact


def test_a_raw_emission_of_a_released_original_is_the_bytes():
    # JSON a program may parse: Guard passes it byte-exact
    raw = b"[" + b",\n".join(b'{"id": %d, "name": "item %d"}' % (i, i) for i in range(60_000)) + b"]\n"
    assert len(raw) > RELEASE_ABOVE
    orig = Original(raw, releasable=True)
    res = compress(orig, command="curl -s https://example.invalid/api/items")
    assert not orig.held
    assert res.emission.decision == "verbatim" and res.output == raw


def test_pipe_of_a_big_input_expands_byte_exact(tmp_path):
    with open(EXAMPLE, "rb") as fh:
        unit = fh.read()
    raw = b"".join(unit.replace(b"test_calc.py", f"test_calc{i}.py".encode()) for i in range(400))
    run = [sys.executable, "-m", "thresher"]
    env = dict(os.environ)
    out = subprocess.run(run + ["pipe", "--cmd", "python -m pytest -v", "--exit-code", "1"],
                         input=raw, capture_output=True, env=env, timeout=120).stdout
    footer = out.decode().rstrip("\n").split("\n")[-1]
    m = FOOTER_RE.match(footer)
    assert m, footer
    back = subprocess.run(run + ["expand", "--raw", m["handle"]], capture_output=True, env=env,
                          timeout=120).stdout
    assert back == raw
