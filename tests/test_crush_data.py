"""The lossless tier and the data crushers on real captured outputs (tests/fixtures/data-*.json)."""

from __future__ import annotations

import json
import os
import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.markers import FOOTER_RE, elided
from thresher.dataflow.tokens import estimate
from thresher.stages.data import crush_json
from thresher.stages.data import crush_table
from thresher.stages.data import crush_toml
from thresher.stages.data import crush_yaml
from thresher.stages.generic import lossless

from .conftest import FIXTURES, fixture_case
from .distill_util import named_source_lines

DATA = sorted(n[:-5] for n in os.listdir(FIXTURES) if n.startswith("data-") and n.endswith(".json"))


class Ctx:
    """A stage context with the json graph's budget."""

    def __init__(self, max_lines: int = 400, max_tokens: int = 4000) -> None:
        self.budget = {"max_lines": max_lines, "max_tokens": max_tokens}
        self.extras: dict = {}
        self.handle = "h"


def _run(case: dict):
    return compress(case["stdout"], command=case["command"], exit_code=case["exit_code"], trace=True)


@pytest.mark.parametrize("cid", DATA)
def test_every_fact_kept_verbatim_exact_and_never_larger(cid):
    """Each data fixture keeps its must_keep facts; verbatim ones come back byte-exact."""
    case = fixture_case(cid)
    res = _run(case)
    for fact in case["must_keep"]:
        assert fact in res.text + case["stderr"], fact
    if case["verbatim"]:
        assert res.output == case["stdout"].encode()
    assert estimate(res.text) <= estimate(case["stdout"])
    assert _run(case).output == res.output  # deterministic, byte-stable


def test_lock_files_and_manifests_pass_byte_exact_even_when_huge():
    """`cat uv.lock` (98 KB) and `cat package.json` are read by tools: byte-exact."""
    for cid in ("data-toml-uv-lock-cat", "data-json-package-json-cat"):
        res = _run(fixture_case(cid))
        assert res.emission.decision == "verbatim", cid


def test_uniform_json_array_becomes_a_verified_table():
    """`jq . packages.json` fits as a table: no value lost, and the table inverts to the input."""
    case = fixture_case("data-json-packages-jq")
    res = _run(case)
    lines = res.text.splitlines()
    n = len(json.loads(case["stdout"]))
    assert lines[0] == lossless.TABLE_HEAD.format(n=n)
    assert lines[1] == '"name","version"'
    table = lines[:-1]  # without the footer
    assert lossless.json_untable(table, "  ") == case["stdout"].rstrip("\n")
    assert FOOTER_RE.match(lines[-1])


def test_lossless_json_declines_on_layouts_it_cannot_restore():
    """Hand-formatted JSON (an inline object) is not re-indentable: both forms decline."""
    text = '{\n  "a": { "b": 1 },\n  "c": [1, 2]\n}'
    assert lossless.json_compact(text) is None
    assert lossless.json_table('[\n  {"a": 1},\n  {"a": 2}\n]') is None


def test_runs_fold_with_exact_counts_and_decline_on_lookalike_lines():
    """A run of identical lines folds to one line and a count; an input line shaped like the count
    line makes the inverse ambiguous, so the stage declines."""
    params = {"json_forms": False, "runs": True, "min_run": 3, "min_blank_run": 3, "max_json_bytes": 1 << 20}
    p = initial_payload(("start\n" + "same old line\n" * 30 + "\n" * 40 + "end\n").encode())
    out = lossless.run(p, params, Ctx(2, 2))
    assert list(out.lines) == ["start", "same old line", lossless.RUN_LINE.format(n=29), "",
                               lossless.BLANK_LINE.format(n=39), "end"]
    assert lossless.expand_runs(list(out.lines)) == list(p.lines)
    tricky = initial_payload(("same old line\n" * 30 + lossless.RUN_LINE.format(n=2) + "\n").encode())
    assert lossless.run(tricky, params, Ctx(2, 2)) is None


def test_cars_keeps_every_row_with_a_null_and_counts_the_rest_exactly():
    """jq . cars.json: all 14 rows with a null field are kept; the one summary line above the
    document counts the 406 objects and names the rows shown; the sample itself still parses."""
    case = fixture_case("data-json-cars-jq")
    cars = json.loads(case["stdout"])
    text = _run(case).text
    for car in cars:
        if car["Miles_per_Gallon"] is None or car["Horsepower"] is None:
            assert json.dumps(car["Name"]) in text
    m = re.search(r"^\[thresher: \.: 406 objects, (\d+) shown \(([#\d, -]+)\); 14 anomalous, all shown;", text, re.M)
    assert m and '"Miles_per_Gallon" num 398 null 8' in text
    shown = [int(i) for r in m.group(2).split(", ") for i in
             (range(int(r[1:].split("-#")[0]), int(r.split("-#")[-1].lstrip("#")) + 1))]
    sample = json.loads("\n".join(ln for ln in text.splitlines() if not ln.startswith("[thresher:")))
    assert len(sample) == len(shown) == int(m.group(1))
    keys = list(cars[0])
    assert sample == [[cars[i][k] for k in keys] for i in shown]  # rows: the values, in key order


def test_recorded_api_session_keeps_non_200_calls():
    """A GitHub API recording: every call with a non-200 status is shown with its path."""
    case = fixture_case("data-json-octokit-project-cards")
    text = _run(case).text
    for rec in json.loads(case["stdout"]):
        if rec["status"] != 200:
            assert json.dumps(rec["path"]) in text


def test_csv_rows_are_byte_exact_and_gaps_count_every_row():
    """head -n 1500 airports.csv: header, schema, rows with empty fields; one line names the rows
    shown and counts the rest, and no marker sits between the rows."""
    case = fixture_case("data-csv-airports-head")
    text = _run(case).text
    src = case["stdout"].splitlines()
    body = [line for line in text.splitlines() if not line.startswith("[thresher:")]
    assert all(line in src for line in body)
    m = re.search(r"^\[thresher: rows shown: ([\d, -]+); (\d+) rows not shown\]$", text, re.M)
    assert m and len(body) - 1 + int(m.group(2)) == len(src) - 1
    shown = [i for r in m.group(1).split(", ") for i in
             range(int(r.split("-")[0]), int(r.split("-")[-1]) + 1)]
    assert body[1:] == [src[i] for i in shown]  # rows numbered from 1 after the header
    lines = text.splitlines()
    first_row = lines.index(body[1])
    assert not any(ln.startswith("[thresher:") for ln in lines[first_row:-1])  # no marker between rows
    assert "[thresher: 1499 rows × 7 columns (comma-separated)" in text


def test_tsv_schema_names_the_columns_from_the_header():
    """sqlite3 -tabs: the header names the columns of the schema lines."""
    text = _run(fixture_case("data-tsv-airports-sqlite")).text
    for col in ("iata", "name", "city", "state", "country", "latitude", "longitude"):
        assert f"[thresher: column {col}: " in text


def test_incompressible_table_is_not_sampled():
    """Random hex test vectors: the gzip probe skips row sampling (trim's head + tail instead)."""
    res = _run(fixture_case("data-csv-random-hex-head"))
    stages = {s["node"]: s["decision"] for s in res.as_dict()["trace"]["stages"]}
    assert stages["crush"] == "declined" and stages["trim"] == "applied"


def test_yaml_items_with_nulls_are_kept_and_lines_are_byte_exact():
    """yq -y . cars.json: the 14 items with a null are kept; kept lines are source lines."""
    case = fixture_case("data-yaml-cars-yq")
    text = _run(case).text
    src = set(case["stdout"].splitlines())
    assert text.count("Miles_per_Gallon: null") == 8 and text.count("Horsepower: null") == 6
    assert all(line in src or elided(line) for line in text.splitlines() if "[thresher:" not in line)


def test_toml_lock_head_lists_dropped_entries_by_name():
    """head -n 500 uv.lock: dropped [[package]] entries are counted and named in the summary
    block, with the source lines they held; no marker inside the document."""
    text = _run(fixture_case("data-toml-uv-lock-head")).text
    assert re.search(r"^\[thresher: \[\[package\]\]: \d+ entries, \d+ shown \(#0-#\d+.*; not shown "
                     r"\(name\): .*\(lines \d+-\d+", text, re.M)
    assert not re.search("^\\s*\u2026\\d+-\\d+$", text, re.M)


def _document(text: str) -> tuple[list[str], str]:
    """The summary lines above a crushed YAML/TOML view, and the document part below them."""
    lines = text.splitlines()
    head = 0
    while head < len(lines) and lines[head].startswith("[thresher: "):
        head += 1
    body = [line for line in lines[head:] if not FOOTER_RE.match(line)]
    return lines[:head], "\n".join(body)


# crushed YAML and TOML views of real files (fixtures of three sources each)
CRUSHED_YAML = ("data-yaml-cars-yq", "read-yaml-ansible-config-base", "read-yaml-ansible-changelog",
                "read-yaml-ansible-file-tasks", "struct-yaml-kin-openapi-lxkns")
CRUSHED_TOML = ("data-toml-uv-lock-head", "read-toml-clap-cargo", "struct-toml-web-sys-cargo")


@pytest.mark.parametrize("cid", CRUSHED_YAML + CRUSHED_TOML)
def test_crushed_yaml_and_toml_say_it_once_outside_the_data(cid):
    """Issue 16 §12: a crushed YAML/TOML view is a summary block, then the kept source lines
    only (in order, byte-exact, and they parse as the same format), then the footer; every
    source line left out lies in a range the summary block names."""
    import tomllib
    import yaml
    case = fixture_case(cid)
    res = _run(case)
    stages = {s["node"]: s["decision"] for s in res.as_dict()["trace"]["stages"]}
    assert stages["crush"] == "applied", cid
    summary, doc = _document(res.text)
    assert summary and "read a range with: " in summary[0]
    assert not any(elided(line) for line in doc.split("\n"))
    if "yaml" in cid:
        list(yaml.safe_load_all(doc))
    else:
        tomllib.loads(doc)
    stage = crush_yaml if "yaml" in cid else crush_toml
    p = initial_payload(case["stdout"].encode())
    ctx = Ctx()
    ctx.handle = "h"
    out = stage.run(p, {"max_ratio": 0.5, "max_bytes": 1 << 24}, ctx)
    assert out is not None
    shown = [o for o in out.origin if o >= 0]
    assert shown == sorted(shown)
    first = out.origin.index(shown[0])  # no summary line once the document has begun
    assert all(o < 0 for o in out.origin[:first]) and all(o >= 0 for o in out.origin[first:])
    named = named_source_lines([ln for ln, o in zip(out.lines, out.origin) if o < 0][1:])
    src = p.source
    missing = [k for k in range(len(src)) if k not in set(shown) and k not in named and src[k].strip()]
    assert not missing, missing[:5]


def test_yaml_sample_that_would_not_parse_is_not_used():
    """An anchor inside an item a sample would drop, its alias kept: that sample is not YAML, so
    it is never shown; the same list without the alias is crushed, and an aliased node is
    described once (at its anchor)."""
    import yaml

    def doc(anchor: str, alias: str) -> str:
        items = "\n".join(f"- name: item{i}\n  value: {anchor if i == 150 else ''}{i}"
                          for i in range(300))
        return "base: &b\n" + "\n".join(f"  k{i}: {i}" for i in range(200)) + "\nitems:\n" \
            + items + f"\nlast: *b\nagain: {alias}\n"

    params = {"max_ratio": 1.0, "max_bytes": 1 << 22}
    assert crush_yaml.run(initial_payload(doc("&v ", "*v").encode()), params, Ctx(60, 600)) is None
    out = crush_yaml.run(initial_payload(doc("", "1").encode()), params, Ctx(60, 600))
    assert out is not None
    summary, body = _document("\n".join(out.lines))
    list(yaml.safe_load_all(body))
    assert sum(".base:" in s or ".last:" in s for s in summary) == 1


def test_failing_jq_stream_is_not_crushed():
    """A jq run that failed half-way printed several documents: no crusher claims it."""
    case = fixture_case("data-json-cars-stream-fail")
    assert case["exit_code"] != 0
    p = initial_payload(case["stdout"].encode())
    assert crush_json.run(p, {"max_bytes": 1 << 24, "max_ratio": 0.5}, Ctx(10, 100)) is None


def test_crushers_decline_on_the_wrong_shape():
    """Each crusher returns None on input of another format."""
    csv_text = fixture_case("data-csv-weather-sqlite")["stdout"]
    json_text = fixture_case("data-json-cars-jq")["stdout"]
    yaml_text = fixture_case("data-yaml-cars-yq")["stdout"]
    small = Ctx(10, 100)
    tree = {"max_ratio": 0.5, "max_bytes": 1 << 24}
    assert crush_json.run(initial_payload(csv_text.encode()), {"max_bytes": 1 << 24, "max_ratio": 0.5},
                          small) is None
    assert crush_table.run(initial_payload(json_text.encode()), {"delimiter": "", "max_ratio": 0.5,
                                                                 "max_anomalies": 60, "tail_share": 0.25},
                           small) is None
    assert crush_yaml.run(initial_payload(csv_text.encode()), tree, small) is None
    assert crush_toml.run(initial_payload(yaml_text.encode()), tree, small) is None


def test_small_documents_pass_whole():
    """Within the budget nothing is rewritten: the agent reads the document as printed."""
    doc = json.dumps([{"name": f"pkg{i}", "version": "1.0"} for i in range(20)], indent=2)
    res = compress(doc, command="jq . packages.json", exit_code=0)
    assert res.output == doc.encode()


def test_a_table_with_a_kept_redraw_line_is_declined_not_raised():
    """A failing sqlite CSV run with an error under a progress redraw (Read keeps ``Error: …\\r50%``):
    crush-table declines (the csv module raised on the bare CR), and the error line is shown."""
    case = fixture_case("data-csv-weather-sqlite-fail")
    lines = case["stdout"].split("\n")
    lines.insert(5, "Error: disk I/O error\r 50%")
    res = compress("\n".join(lines), command=case["command"], exit_code=1, trace=True)
    crush = [r for r in res.trace.records if r["node"] == "crush"]
    assert crush and all(r["decision"] != "failed" for r in crush)
    assert "Error: disk I/O error\r 50%\n" in res.output.decode()


def test_json_sparse_key_names_every_item_carrying_it_once():
    """A key in a third of the objects is no anomaly (the sample does not keep those items),
    yet which items carry it is a fact: the summary names them all (by their name key, long
    names too) exactly once, with the exact count; a key every object has is not listed, and
    the names are input lexemes."""
    items = [{"code": f"c{i:03d}", "name": f"Item number {i} " + "of a long catalogue " * (i % 5)}
             | ({"extra": i} if i % 3 == 0 else {}) for i in range(300)]
    text = json.dumps({"items": items}, indent=4)
    out = crush_json.run(initial_payload(text.encode()), {"max_ratio": 0.9, "max_bytes": 1 << 24}, Ctx())
    assert out is not None
    view = "\n".join(out.payload.lines)
    carrying = [json.dumps(x["name"]) for x in items if "extra" in x]
    line = next(ln for ln in view.splitlines() if '"extra" present (100): ' in ln)
    assert line.split('"extra" present (100): ', 1)[1].split(";")[0].rstrip("]") == ", ".join(carrying)
    assert '"code" present' not in view and '"code" absent' not in view
    assert sum(view.count(n) for n in carrying) < 2 * len(carrying) + 1  # listed once, not per level


@pytest.mark.parametrize("max_tokens", [1500, 2500, 4000])
def test_toml_sibling_tables_left_out_keep_their_header_lines_while_room_is_left(max_tokens):
    """A run of sibling tables sampled to fit: with the room the sample leaves, the tables left
    out keep their header lines (verbatim, their bodies dropped) in document order, the note
    counts them, the rest stay named in the note; the view fits and parses."""
    import tomllib
    text = _manifest({"alpha": set(), "beta": set()}, 120)
    p = initial_payload(text.encode())
    out = crush_toml.run(p, {"max_ratio": 0.9, "max_bytes": 1 << 24}, Ctx(max_tokens=max_tokens))
    assert out is not None
    lines, origin = list(out.lines), list(out.origin)
    assert len(lines) <= 400 and estimate("\n".join(lines)) <= max_tokens
    shown = [o for o in origin if o >= 0]
    doc = tomllib.loads("\n".join(p.source[o] for o in shown))
    src = tomllib.loads(text)["pkg"]
    summary = [ln for ln, o in zip(lines, origin) if o < 0]
    bare = [(pk, t) for pk in doc["pkg"] for t, body in doc["pkg"][pk].get("target", {}).items()
            if body != src[pk]["target"][t]]
    assert bare and all(doc["pkg"][pk]["target"][t] == {} for pk, t in bare)
    assert all(f"[pkg.{pk}.target.{t}]" in lines for pk, t in bare)
    order = [(pk, t) for pk in src for t in src[pk]["target"]]
    left_out = [x for x in order if doc["pkg"].get(x[0], {}).get("target", {}).get(x[1]) != src[x[0]]["target"][x[1]]]
    assert bare == left_out[:len(bare)]   # the first ones left out, in document order
    counted = sum(int(n) for n in re.findall(r"; (\d+) more by their header lines only", "\n".join(summary)))
    assert counted == len(bare)
    for pk in src:   # a note that names the tables not shown names none of those by header
        note = next(s for s in summary if s.startswith(f"[thresher: [pkg.{pk}.target.*]"))
        listed = note.split("not shown: ", 1)[1] if "not shown: " in note else ""
        assert not any(f"{t}," in listed or f"{t} (" in listed for p_, t in bare if p_ == pk)


def _manifest(pkgs: dict[str, set[int]], targets: int) -> str:
    """A channel-manifest-like TOML: ``[pkg.P]`` then one ``[pkg.P.target.tK]`` per target,
    unavailable (no url) for the targets in ``pkgs[P]``."""
    out = ['manifest-version = "2"', ""]
    for p, off in pkgs.items():
        out += [f"[pkg.{p}]", f'version = "1.{len(p)}.0"', ""]
        for k in range(targets):
            out.append(f"[pkg.{p}.target.t{k:02d}-unknown-linux]")
            out += ["available = false"] if k in off else \
                ["available = true", f'url = "https://example.org/{p}/t{k:02d}.tar.xz"',
                 f'hash = "{(p * 64)[:32]}{k:032d}"']
            out.append("")
    return "\n".join(out)


def test_toml_sibling_tables_are_sampled_like_an_array_of_tables():
    """Runs of sibling tables (``[pkg.a.target.x]``, ``[pkg.a.target.y]``, …) are sampled like an
    array of tables: the view fits the budget without a trim, parses, is the source's own lines
    in order, and every line left out lies in a range a summary line names; the summary gives
    the exact count and names every table not shown; a later run with the same table names and
    keys is said once and shows only its anomalous table."""
    import tomllib
    text = _manifest({"alpha": set(), "beta": {7}, "gamma": set()}, 40)
    p = initial_payload(text.encode())
    out = crush_toml.run(p, {"max_ratio": 0.9, "max_bytes": 1 << 24}, Ctx())
    assert out is not None
    lines, origin = list(out.lines), list(out.origin)
    assert len(lines) <= 400 and estimate("\n".join(lines)) <= 4000
    shown = [o for o in origin if o >= 0]
    assert shown == sorted(shown)
    doc = tomllib.loads("\n".join(p.source[o] for o in shown))
    summary = [ln for ln, o in zip(lines, origin) if o < 0][1:]
    named, kept = named_source_lines(summary), set(shown)
    assert all(k in kept or k in named or not p.source[k].strip() for k in range(len(p.source)))
    head = next(s for s in summary if s.startswith("[thresher: [pkg.alpha.target.*]: 40 tables, "))
    source = tomllib.loads(text)["pkg"]["alpha"]["target"]
    gone = [t for t in source if t not in doc["pkg"]["alpha"]["target"]]
    assert all(t in head for t in gone)   # named in the note, or by their header lines:
    bare = [t for t, body in doc["pkg"]["alpha"]["target"].items() if body != source[t]]
    assert gone or bare
    assert all(body == {} for t, body in doc["pkg"]["alpha"]["target"].items() if t in bare)
    if bare:
        assert f"{len(bare)} more by their header lines only" in head
    beta = next(s for s in summary if s.startswith("[thresher: [pkg.beta.target.*]: 40 tables"))
    assert "anomalous" in beta  # the unavailable target: its table is the one shown
    # (the others of the run may keep their header lines, their bodies dropped)
    assert [t for t, body in doc["pkg"]["beta"]["target"].items() if body] == ["t07-unknown-linux"]
    gamma = next(s for s in summary if s.startswith("[thresher: [pkg.gamma.target.*]: 40 tables"))
    assert "the same table names and keys as [pkg.alpha.target.*]" in gamma
    assert set(doc["pkg"]) == {"alpha", "beta", "gamma"}  # packages (few siblings) all kept
    again = crush_toml.run(initial_payload(text.encode()), {"max_ratio": 0.9, "max_bytes": 1 << 24}, Ctx())
    assert again is not None and list(again.lines) == lines  # deterministic


def test_anomalies_and_profiles_do_not_depend_on_rows_sharing_cells():
    """Column rules are judged on a column's distinct cell objects with their counts: rows that
    share one cell per repeated value (as crush-json builds them) get the same flags, the same
    ranking and the same profile as rows holding a fresh cell each, ties between equal numbers
    written differently ("1" and "1.0") included."""
    from thresher.stages.lib import anomaly

    texts = [("num", "200")] * 46 + [("num", "404"), ("num", "1.0"), ("num", "1"), ("null", "null")]
    shared = {t: anomaly.Cell(*t) for t in texts}
    fresh_rows, shared_rows = [], []
    for i, t in enumerate(texts):
        extra = {"rare": ("str", '"only here"')} if i == 7 else {}
        fresh_rows.append({"status": anomaly.Cell(*t), "n": anomaly.Cell("num", str(i % 3)),
                           **{k: anomaly.Cell(*v) for k, v in extra.items()}})
        shared_rows.append({"status": shared[t], "n": shared.setdefault(("num", str(i % 3)),
                                                                        anomaly.Cell("num", str(i % 3))),
                            **{k: anomaly.Cell(*v) for k, v in extra.items()}})
    found = anomaly.find(fresh_rows)
    assert found == anomaly.find(shared_rows)
    assert {46, 7} <= set(found)            # the 404 among 200s, the row with a rare key
    assert anomaly.by_rank(found) == anomaly.by_rank(anomaly.find(shared_rows))
    for col in anomaly.columns(fresh_rows):
        assert anomaly.profile(fresh_rows, col) == anomaly.profile(shared_rows, col)
    assert anomaly.profile(fresh_rows, "n") == "num 50; 0 ×17, 1 ×17, 2 ×16"
