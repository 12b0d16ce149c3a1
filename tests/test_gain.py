"""``thresher gain``: totals, tables, worst offenders, JSON/CSV/HTML, and the HTML in Chromium."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import time

import pytest

from thresher.dataflow.api import compress
from thresher.stores.report import summarize
from thresher.stores.savings import insert_event, load_events, record_payload

from .conftest import fixture_case

TH = [sys.executable, "-m", "thresher"]
HERE = os.path.dirname(os.path.abspath(__file__))


def _gain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(TH + ["gain", "--no-exact", *args], capture_output=True, text=True)


def _fill() -> None:
    for case_id in ("pytest-fail-verbose", "git-status-long", "python-traceback"):
        case = fixture_case(case_id)
        raw = case["stdout"].encode()
        res = compress(raw, command=case["command"], exit_code=case["exit_code"])
        record_payload(res, raw, command=case["command"], exit_code=case["exit_code"])
    base = {"ts": time.time() - 86400, "command": "mytool --big", "tool": "mytool", "class": "generic",
            "graph": "generic.default", "role": "default", "stream": "stdout", "decision": "compressed",
            "transforms": "collapse,trim", "exit_code": 0, "scope": "", "handle": "0123456789ab",
            "bytes_in": 1000, "bytes_out": 1200, "tokens_in": 300, "tokens_out": 340, "ms": 2.0,
            "measure_only": 0, "output_z": None}
    insert_event(base)  # an output that grew: counted against us
    insert_event({**base, "tokens_out": 100, "bytes_out": 300, "measure_only": 1})


def test_summary_is_signed_and_keeps_measure_only_apart():
    _fill()
    report = summarize(load_events())
    t = report["totals"]
    assert t["events"] == 4 and t["net"] == t["saved"] - t["bounce_tokens"]
    assert report["measure_only"]["events"] == 1 and report["measure_only"]["saved"] == 200
    assert report["grew"][0]["saved"] == -40 and report["grew"][0]["command"] == "mytool --big"
    assert {r["key"] for r in report["by_transform"]} >= {"collapse", "trim"}
    assert len(report["by_day"]) in (1, 2)


def test_terminal_table_json_and_csv():
    _fill()
    text = _gain()
    assert text.returncode == 0
    for heading in ("thresher gain:", "per command", "per class", "per transform", "per day",
                    "outputs that grew", "fast estimate"):
        assert heading in text.stdout, heading
    data = json.loads(_gain("--json").stdout)
    assert data["totals"]["events"] == 4 and data["tokenizers"] == {"estimate": 5}
    rows = list(csv.DictReader(io.StringIO(_gain("--csv").stdout)))
    assert len(rows) == 5 and {r["measure_only"] for r in rows} == {"0", "1"}


def test_bounces_show_in_the_most_bounced_list():
    _fill()
    handle = load_events()[0]["handle"]
    assert subprocess.run(TH + ["expand", handle], capture_output=True).returncode == 0
    data = json.loads(_gain("--json").stdout)
    assert data["most_bounced"][0]["handle"] == handle
    assert data["totals"]["bounce_tokens"] > 0


def _parse_table(text: str, title: str) -> tuple[list[str], list[list[str]]]:
    """The header cells and body rows of one terminal table (columns split on 2+ spaces)."""
    lines = text.splitlines()
    at = lines.index(title)
    header = re.split(r"\s{2,}", lines[at + 1].strip())
    rows = []
    for line in lines[at + 3:]:
        if not line.startswith("  "):
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return [""] + header, rows


def test_every_gain_column_says_what_it_counts_and_the_token_columns_add_up():
    _fill()
    handle = load_events()[0]["handle"]
    for _ in range(3):  # 3 expansions of one payload: 1 payload expanded, many tokens re-read
        assert subprocess.run(TH + ["expand", handle], capture_output=True).returncode == 0
    res = _gain()
    assert res.returncode == 0
    assert "tokens saved = in - out" in res.stdout and "net = saved - re-read" in res.stdout
    for title in ("per command", "per class", "per day"):
        header, rows = _parse_table(res.stdout, title)
        assert header[1:] == ["payloads", "tokens in", "tokens out", "tokens saved",
                              "tokens re-read", "tokens net", "net % of in", "payloads expanded"]
        assert rows
        for row in rows:
            n = dict(zip(header, row))
            num = {k: int(v.replace(",", "")) for k, v in n.items() if k and k != "net % of in"}
            assert num["tokens in"] - num["tokens out"] == num["tokens saved"], (title, row)
            assert num["tokens saved"] - num["tokens re-read"] == num["tokens net"], (title, row)
    data = json.loads(_gain("--json").stdout)
    t = data["totals"]
    assert t["expanded"] == 1 and t["bounce_tokens"] > 3  # a count of payloads vs tokens
    assert data["most_bounced"][0]["expansions"] == 3
    header, rows = _parse_table(res.stdout, "most bounced (expanded after all)")
    assert header[1:] == ["command", "class", "tokens saved", "tokens re-read", "tokens net",
                          "expansions", "when", "handle"]


def test_gain_html_into_a_missing_folder_is_a_one_line_error(tmp_path):
    _fill()
    res = _gain("--html", str(tmp_path / "no" / "such" / "x.html"))
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert res.stderr.count("\n") == 1
    assert res.stderr.startswith(f"thresher gain: cannot write {tmp_path / 'no' / 'such' / 'x.html'}")
    assert "No such file or directory" in res.stderr


def test_html_is_self_contained_with_svg_charts(tmp_path):
    _fill()
    page = tmp_path / "gain.html"
    assert _gain("--html", str(page)).returncode == 0
    html = page.read_text()
    assert html.count("<svg") == 2 and 'class="bar"' in html
    assert "<script" not in html and "<link" not in html
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched


def test_an_empty_ledger_still_reports():
    res = _gain()
    assert res.returncode == 0 and "no events recorded yet" in res.stdout


def _screenshot_module():
    spec = importlib.util.spec_from_file_location(
        "screenshot_gain", os.path.join(HERE, "..", "benchmarks", "screenshot_gain.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_html_report_renders_its_charts_in_headless_chromium(tmp_path):
    shot = _screenshot_module()
    if shot.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    out = tmp_path / "gain.png"
    res = subprocess.run([sys.executable, os.path.join(HERE, "..", "benchmarks", "screenshot_gain.py"),
                          "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.count_color(str(out), shot.GREEN) > 500  # the bars are really painted
