"""A data file the agent reads is a read (crushed over budget); one a program may read is byte-exact.

Real captures (tests/fixtures/read-*.json, benchmarks/capture_data_reads.py): `cat` of CSV, YAML,
TOML and JSON files that published packages ship, and `python3 -m json.tool` of JSON files.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from thresher.dataflow.api import compress, load_plans
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.markers import FOOTER_RE
from thresher.dataflow.tokens import estimate
from thresher.stages.ingest import guard
from thresher.stages.params import GuardParams

from .conftest import FIXTURES, fixture_case

READS = sorted(n[:-5] for n in os.listdir(FIXTURES) if n.startswith("read-") and n.endswith(".json"))
BUDGET = 4000  # max_tokens of the csv/json/yaml/toml graphs


def _seen(case: dict, reader: str = "agent"):
    return compress(case["stdout"], command=case["command"], exit_code=case["exit_code"], reader=reader)


def test_there_are_reads_of_every_data_kind():
    kinds = {cid.split("-")[1] for cid in READS}
    assert {"csv", "yaml", "toml", "json"} <= kinds and len(READS) >= 10


@pytest.mark.parametrize("cid", READS)
def test_agent_read_is_crushed_and_keeps_every_fact(cid):
    """The agent reading: every must_keep fact is there, the view is smaller than the raw output,
    and an output far over the budget comes down to about the budget."""
    case = fixture_case(cid)
    res = _seen(case)
    raw = estimate(case["stdout"])
    for fact in case["must_keep"]:
        assert fact in res.text, fact
    assert res.emission.decision == "compressed"
    assert estimate(res.text) < raw
    if raw > 2 * BUDGET:
        assert estimate(res.text) <= BUDGET * 1.05, (estimate(res.text), raw)
    assert FOOTER_RE.match(res.text.splitlines()[-1])  # the handle to get the rest back


@pytest.mark.parametrize("cid", READS)
def test_program_reader_gets_the_bytes(cid):
    """The same command when a program may be reading (a shim into a pipe): byte-exact (INV-9)."""
    case = fixture_case(cid)
    res = _seen(case, reader="program")
    assert res.output == case["stdout"].encode()
    assert res.emission.decision == "verbatim"


@pytest.mark.parametrize("name", ["package-lock.json", "yarn.lock", "poetry.lock", "Cargo.lock",
                                  "pnpm-lock.yaml", "uv.lock", "composer.lock", "go.sum"])
def test_lock_files_are_byte_exact_whoever_reads(name):
    """A lock file is written by tools: a copy of what was shown must be the file (guard verdict
    on the command, for the agent as for a program)."""
    p = initial_payload(fixture_case("read-json-mime-db")["stdout"].encode(), command=f"cat {name}")
    params = GuardParams().model_dump()
    for reader in ("agent", "program"):
        assert guard.verdict(p, params, reader) == "structured output flag (a program will parse it)"


def test_uv_lock_passes_whole_through_the_toml_graph():
    case = fixture_case("data-toml-uv-lock-cat")
    assert _seen(case).output == case["stdout"].encode()


def test_data_file_commands_classify_by_their_data():
    plans = load_plans()
    assert plans.classify("python3 -m json.tool resources-1.json") == "json"
    assert plans.classify("python -m json.tool --sort-keys inventory.json") == "json"
    assert plans.classify("cat lib/ansible/config/base.yml") == "yaml"
    assert plans.classify("cat breast_cancer.csv") == "csv"


def _data_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if not ln.startswith("[thresher: ")]


def _subset(sample, original) -> bool:
    """Every member the sample shows is the input's (objects by key; a cut string is a prefix)."""
    if isinstance(sample, dict):
        return isinstance(original, dict) and all(k in original and _subset(v, original[k])
                                                  for k, v in sample.items())
    if isinstance(sample, str) and sample.endswith("…") and isinstance(original, str):
        return original.startswith(sample[:-1])
    if isinstance(sample, list):
        return isinstance(original, list) and (not sample or len(sample) <= len(original))
    return sample == original


@pytest.mark.parametrize("cid", [c for c in READS if c.startswith("read-json-")])
def test_json_view_is_a_sample_that_parses_with_one_summary_block(cid):
    """Mechanism 12: no marker inside the data. The summary lines come first, then the sample,
    then the footer; the sample parses and shows only what the input holds."""
    case = fixture_case(cid)
    lines = _seen(case).text.splitlines()
    marks = [i for i, ln in enumerate(lines) if "[thresher: " in ln]
    body = _data_lines("\n".join(lines))
    first = lines.index(body[0])
    assert all(i < first for i in marks[:-1]) and marks[-1] == len(lines) - 1
    sample = json.loads("\n".join(body))
    assert _subset(sample, json.loads(case["stdout"]))


def test_mime_db_summary_counts_the_keys_the_sample_shows():
    """`cat db.json` (2446 media types): the summary states the count and how many are shown, and
    the sample holds exactly that many, each with its own value or a declared cut."""
    case = fixture_case("read-json-mime-db")
    text = _seen(case).text
    orig = json.loads(case["stdout"])
    m = re.search(r"^\[thresher: \.: (\d+) keys, (\d+) shown; not shown: ", text, re.M)
    assert m and int(m.group(1)) == len(orig)
    sample = json.loads("\n".join(_data_lines(text)))
    assert len(sample) == int(m.group(2)) < len(orig)
    assert list(sample) == [k for k in orig if k in sample]  # input order


def test_csv_read_keeps_the_preamble_and_the_rows_at_each_columns_extremes():
    """scikit-learn's breast_cancer.csv starts with a count line, not a header: it stays as it is
    and is not counted as a row; the rows holding each column's min and max stay byte-exact."""
    case = fixture_case("read-csv-sklearn-breast-cancer")
    text = _seen(case).text
    src = case["stdout"].splitlines()
    assert text.splitlines()[0] == src[0]
    assert f"[thresher: {len(src) - 1} rows × 31 columns (comma-separated)" in text
    rows = [ln.split(",") for ln in src[1:]]
    shown = set(text.splitlines())
    for col in range(3):
        values = [float(r[col]) for r in rows]
        for v in (min(values), max(values)):
            assert any(ln in shown for ln, r in zip(src[1:], rows) if float(r[col]) == v), (col, v)


def test_shim_into_a_pipe_passes_bytes_and_the_agents_terminal_gets_the_view(tmp_path):
    """`thresher run -- cat x.csv`: under a PATH shim writing into a pipe a program may be reading,
    so the bytes pass; run by the hook (no shim) the agent reads the crushed view."""
    case = fixture_case("read-csv-sklearn-boston")
    (tmp_path / "boston.csv").write_text(case["stdout"])
    cmd = [sys.executable, "-m", "thresher", "run", "--", "cat", "boston.csv"]
    env = {k: v for k, v in os.environ.items() if k != "THRESHER_SHIMMED"}
    shim = subprocess.run(cmd, cwd=tmp_path, capture_output=True, env=dict(env, THRESHER_SHIMMED="1"))
    hook = subprocess.run(cmd, cwd=tmp_path, capture_output=True, env=env)
    assert shim.returncode == hook.returncode == 0
    assert shim.stdout == case["stdout"].encode()
    assert len(hook.stdout) < len(shim.stdout) // 3 and b"[thresher: 506 rows" in hook.stdout


TABLES = sorted(n[:-5] for n in os.listdir(FIXTURES)
                if n.startswith(("read-csv-", "data-csv-", "data-tsv-")) and n.endswith(".json"))


@pytest.mark.parametrize("cid", TABLES)
def test_table_view_names_exactly_the_rows_it_shows(cid):
    """Mechanism 12 for tables: one line above the rows names those shown (numbered from 1 after
    the header) and counts the rest; the rows follow with no marker between them."""
    case = fixture_case(cid)
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"], trace=True)
    if dict((s["node"], s["decision"]) for s in res.as_dict()["trace"]["stages"])["crush"] != "applied":
        pytest.skip("crush-table declined (incompressible or not a table)")
    lines = res.text.splitlines()
    m = next(re.match(r"^\[thresher: rows shown: ([\d, -]+); (\d+) rows not shown\]$", ln)
             for ln in lines if ln.startswith("[thresher: rows shown:"))
    shown = [i for r in m.group(1).split(", ") for i in range(int(r.split("-")[0]), int(r.split("-")[-1]) + 1)]
    at = lines.index(m.group(0))
    rows = lines[at + 1:-1]
    assert not any(ln.startswith("[thresher:") for ln in rows)
    src = case["stdout"].splitlines()
    fixed = [ln for ln in lines[:at] if not ln.startswith("[thresher:")]
    assert fixed == src[:len(fixed)]
    assert rows == [src[len(fixed) + i - 1] for i in shown]
    assert len(shown) + int(m.group(2)) == len(src) - len(fixed)
