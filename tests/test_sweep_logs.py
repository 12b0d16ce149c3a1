"""Log and data outputs of real programs (benchmarks/capture_sweep_logs.py): what an agent reads
them for survives byte-exact, and the rest still folds."""

from __future__ import annotations

import re

from .conftest import fixture_case, seen_by_agent

FAILED_REQUEST_RE = re.compile(r'"([A-Z]+ \S*) HTTP/[\d.]+" ([45]\d\d) ')
MORE_RE = re.compile(r"^\[thresher: (\d+) more lines? like the entry above")


def test_access_log_keeps_each_kind_of_failed_request():
    """An nginx access log over budget: the 200s fold by template, but each kind of 4xx/5xx
    request (a missing file, a dead upstream, a denied path, a wrong method) keeps a verbatim
    line, and is never counted into a run of successful requests."""
    case = fixture_case("log-sweep-nginx-access")
    out = seen_by_agent(case).splitlines()
    kinds: dict[str, list[str]] = {}
    for line in case["stdout"].splitlines():
        m = FAILED_REQUEST_RE.search(line)
        if m:
            kinds.setdefault(re.sub(r"\d+", "#", m.group(1)) + " " + m.group(2), []).append(line)
    assert len(kinds) >= 4
    for kind, lines in kinds.items():
        shown = [ln for ln in out if ln in lines]
        assert shown, kind
        # a failed request's summary line counts only requests of its own kind
        for i, ln in enumerate(out[:-1]):
            if ln in lines and MORE_RE.match(out[i + 1]):
                assert int(MORE_RE.match(out[i + 1]).group(1)) <= len(lines) - 1
    assert case["stdout"].splitlines()[-1] in out
    assert len("\n".join(out)) < len(case["stdout"]) / 5


def _seen(text: str, command: str) -> str:
    return seen_by_agent({"command": command, "exit_code": 0, "stdout": text, "stderr": ""})


def test_minified_json_over_budget_is_laid_out_not_passed_as_tiny():
    """A minified JSON answer is one line: it is not "tiny" for that. Over budget it is laid out
    and sampled (the summary block's line for the sampled array, with exact counts), far smaller
    than the input."""
    case = fixture_case("json-sweep-flask-minified")
    assert case["stdout"].count("\n") <= 1
    out = _seen(case["stdout"], case["command"])
    assert out != case["stdout"]
    assert "[thresher: .results: 120 objects, " in out
    assert '"id": 120' in out and '"count": 120' in out
    assert len(out) < len(case["stdout"]) / 2


def test_minified_json_within_budget_passes_whole_unclipped():
    """The same kind of document within the budget (its first 20 results, still one line longer
    than the line-clipping limit) passes byte-exact: not clipped, not re-laid out."""
    import json
    doc = json.loads(fixture_case("json-sweep-flask-minified")["stdout"])
    doc["results"] = doc["results"][:20]
    text = json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n"
    assert len(text) > 4000
    assert _seen(text, "cat orders.json") == text


def test_json_array_shown_whole_gets_no_schema_line():
    """Each order's `items` (1 to 4 objects) is shown whole: a schema line would only repeat what
    follows it, so only the sampled `results` array (120 objects) has one in the summary block,
    which says which members are not shown."""
    case = fixture_case("json-sweep-flask-minified")
    out = _seen(case["stdout"], case["command"]).splitlines()
    schema = [ln.strip() for ln in out if re.match(r"\s*\[thresher: \S+: \d+ objects", ln)]
    assert len(schema) == 1 and schema[0].startswith("[thresher: .results: 120 objects, ") and " shown (#0-" in schema[0]
    assert any("members not shown are left out" in ln for ln in out)


def test_syslog_file_is_read_as_a_log_with_every_error_line():
    """`tail -n 400 /var/log/syslog` (rsyslog's traditional format, no .log suffix) goes through
    the log graph: the job lines fold by template with exact counts, and every ERROR/WARNING entry
    stays verbatim (job 77 *and* job 233), since they all fit in the budget."""
    case = fixture_case("log-sweep-syslog")
    out = seen_by_agent(case)
    src = case["stdout"].splitlines()
    alarms = [ln for ln in src if " ERROR " in ln or " WARNING " in ln]
    assert len(alarms) >= 4
    for line in alarms:
        assert line in out.splitlines(), line
    assert src[-1] in out
    assert any(MORE_RE.match(ln) for ln in out.splitlines())
    assert len(out) < len(case["stdout"]) / 15


def test_json_log_records_with_a_warning_level_anywhere_are_kept():
    """structlog writes `"level": "warning"` as the last key of each record: every warning and
    error record stays byte-exact, like WARN lines of a text log, while the bulk of info records
    is summarised with exact counts."""
    case = fixture_case("jsonl-sweep-structlog")
    out = seen_by_agent(case).splitlines()
    src = case["stdout"].splitlines()
    alarms = [ln for ln in src if '"level": "warning"' in ln or '"level": "error"' in ln]
    assert len(alarms) >= 5
    for line in alarms:
        assert line in out, line
    assert src[-1] in out
    assert len(out) < len(src) / 3


def test_an_error_repeated_word_for_word_is_counted_not_repeated():
    """The same syslog with the job-77 error line written three more times later on: the distinct
    errors stay whole, the exact repeats fold into the count under the first one."""
    case = dict(fixture_case("log-sweep-syslog"))
    src = case["stdout"].splitlines()
    error = next(ln for ln in src if "ERROR job 77 " in ln)
    at = len(src) - 40
    case["stdout"] = "\n".join(src[:at] + [error] * 3 + src[at:]) + "\n"
    out = seen_by_agent(case).splitlines()
    assert out.count(error) == 1
    assert next(ln for ln in src if "ERROR job 233 " in ln) in out
    after = out[out.index(error) + 1]
    assert MORE_RE.match(after) and int(MORE_RE.match(after).group(1)) == 3


LAST_AT_RE = re.compile(r", the last at (.+)\]$")


def test_java_logger_exception_belongs_to_its_entry_and_stamps_are_times():
    """java.util.logging writes the exception's class at column 0 under the SEVERE message: the
    message, exception, frames and `Caused by:` are one entry, counted whole; and a summary's
    "last at" quotes only the time, never the level word after it (` INFO`, ` SEVE`)."""
    case = fixture_case("log-sweep-java-util-logging")
    out = seen_by_agent(case).splitlines()
    src = case["stdout"].splitlines()
    first = next(i for i, ln in enumerate(src) if " SEVERE " in ln)
    size = next(i for i in range(first + 1, len(src)) if not src[i].strip()) - first
    assert src[first + 1].startswith("java.lang.")
    i = out.index(src[first])
    assert out[i + 1:i + size] == src[first + 1:first + size]
    m = MORE_RE.match(out[i + size])
    assert m and int(m.group(1)) % size == 0
    for line in out:
        stamp = LAST_AT_RE.search(line)
        if stamp:
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", stamp.group(1)), line


def test_last_at_stamp_of_an_http_server_log_names_the_day():
    """Python's http.server (and werkzeug) stamp `[29/Nov/2026 23:13:41]`: the summary's
    "last at" quotes the whole stamp, day included, as it appears in the input."""
    case = fixture_case("log-own-http-server")
    stamps = [LAST_AT_RE.search(ln).group(1) for ln in seen_by_agent(case).splitlines()
              if LAST_AT_RE.search(ln)]
    assert stamps
    for stamp in stamps:
        assert re.fullmatch(r"\d\d/[A-Z][a-z]{2}/\d{4} \d\d:\d\d:\d\d", stamp), stamp
        assert f"[{stamp}]" in case["stdout"] + case["stderr"]
