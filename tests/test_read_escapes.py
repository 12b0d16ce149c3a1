"""Read never hides an error (issue 18 §2): redrawn error states, CRLF error lines, 8-bit escapes.

The inputs are real captured outputs (tests/fixtures) damaged the way terminals and pipes damage
them: a progress redraw over an error, Windows line ends, 8-bit C1 control sequences.
"""

from __future__ import annotations

from thresher.dataflow.api import compress
from thresher.dataflow.escapes import strip_sgr
from thresher.stages.ingest.read import clean
from thresher.stages.lib.text import ERROR_RE

from .conftest import fixture_case


def _pytest_failure() -> dict:
    return fixture_case("pytest-fail-verbose")


def test_a_redrawn_state_holding_an_error_is_kept():
    """``error: …\\r50%`` keeps its error state; states without one still go."""
    assert clean("error: linker failed\r50%") == "error: linker failed\r50%"
    assert clean("10%\r20%\rerror: x\r50%") == "error: x\r50%"
    assert clean("10%\r20%\r50%") == "50%"
    assert clean("10%\r   \r") == "10%"


def test_a_redrawn_error_survives_the_engine_on_a_failing_run():
    """End to end: the redrawn error line of a failing pytest run is in the compressed output."""
    case = _pytest_failure()
    lines = case["stdout"].split("\n")
    lines.insert(30, "error: linker failed: cannot find -lfoo\r 50%")
    res = compress("\n".join(lines), command=case["command"], exit_code=case["exit_code"])
    assert res.emission.decision == "compressed"
    assert "error: linker failed: cannot find -lfoo\r 50%\n" in res.output.decode()


def test_a_failing_commands_error_lines_keep_their_crlf():
    """CRLF output of a failing command: each error line passes with its ``\\r`` (byte-exact)."""
    assert clean("error: x\r", failed=True) == "error: x\r"
    assert clean("error: x\r", failed=False) == "error: x"
    assert clean("collected 3 items\r", failed=True) == "collected 3 items"
    case = _pytest_failure()
    raw = case["stdout"].replace("\n", "\r\n")
    out = compress(raw, command=case["command"], exit_code=case["exit_code"]).output.decode()
    errors = [line for line in raw.split("\n") if ERROR_RE.search(line)]
    assert errors and all(line.endswith("\r") for line in errors)
    assert [e for e in errors if e + "\n" not in out] == []


def test_8bit_c1_escapes_are_stripped_like_the_7bit_forms():
    """U+009B CSI and U+009D OSC sequences go like ESC [ and ESC ] (also the other C1 controls)."""
    assert clean("\x9b31mFAILED\x9b0m x") == clean("\x1b[31mFAILED\x1b[0m x") == "FAILED x"
    assert clean("\x9d8;;http://x\x9clink\x9d8;;\x07 y") == "link y"
    assert clean("a\x85b") == "ab"
    case = _pytest_failure()
    raw = case["stdout"].replace("FAILED", "\x9b31mFAILED\x9b0m").replace(
        "PASSED", "\x9d8;;http://x\x9cPASSED")
    res = compress(raw, command=case["command"], exit_code=case["exit_code"])
    out = res.output.decode()
    assert res.emission.decision == "compressed"
    assert "\x9b" not in out and "\x9d" not in out and "\x9c" not in out


def test_strip_sgr_knows_the_8bit_form():
    """The whole-output colour strip removes 8-bit SGR, and refuses when another C1 escape stays."""
    assert strip_sgr("\x9b31mred\x9b0m") == "red"
    assert strip_sgr("\x9b31mred\x9d0;title\x07") is None
    assert strip_sgr("plain") is None


def test_a_long_error_line_is_not_clipped_wherever_its_error_word_is():
    """A failing command's error line longer than the clip limit passes whole even when the error
    word comes after the limit (a long echoed compiler command ending in ``failed: cc1``)."""
    from thresher.dataflow.executor import initial_payload
    from thresher.stages.ingest import read
    line = "-I/usr/include " * 400 + "failed: cc1"
    params = {"strip_ansi": True, "redraws": True, "max_line_chars": 4000}
    failing = read.run(initial_payload((line + "\nok\n").encode(), exit_code=1), params, None)
    assert failing.lines[0] == line
    passing = read.run(initial_payload((line + "\nok\n").encode(), exit_code=0), params, None)
    assert passing.lines[0] != line and passing.lines[0].startswith(line[:4000])
