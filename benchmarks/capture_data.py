"""Capture fixtures for the data crushers (JSON, YAML, TOML, CSV, TSV) by running real tools.

Data comes from published packages, fetched with their ordinary clients: the vega_datasets wheel
(PyPI: cars.json, airports.csv, seattle-weather.csv), @octokit/fixtures (npm: recorded GitHub API
sessions) and pnpm (npm: its bundled lock.yaml); a uv.lock is resolved by uv for a small project.
The outputs are those of jq, yq, sqlite3, head and cat. must_keep facts are picked from the real output (rows with nulls, non-200 calls, ...).
Run: ``python benchmarks/capture_data.py`` (needs jq, yq, sqlite3, npm and network access to
PyPI/npm); it rewrites tests/fixtures/data-*.json.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from capture_fixtures import run, save

SRC = "benchmarks/capture_data.py"


def case(cid: str, pclass: str, command: str, cwd: str, keep, verbatim: bool = False,
         note: str = "") -> dict:
    """Run ``command`` in a shell in ``cwd`` and save it as fixture ``cid``; ``keep`` picks the
    must_keep facts from stdout (a list, or a function of the stdout)."""
    code, out, err = run(["bash", "-c", command], cwd)
    facts = keep(out) if callable(keep) else keep
    missing = [f for f in facts if f not in out + err]
    assert not missing, (cid, missing)
    c = {"id": cid, "class": pclass, "command": command, "exit_code": code, "stdout": out,
         "stderr": err, "must_keep": facts, "verbatim": verbatim, "source": f"{SRC}: {note}"}
    save(c)
    return c


def fetch(tmp: str) -> dict:
    """Download and unpack the packages the fixtures read; return their folders."""
    run([sys.executable, "-m", "pip", "download", "--no-deps", "vega_datasets==0.9.0", "-d", tmp], tmp)
    with zipfile.ZipFile(glob.glob(os.path.join(tmp, "vega_datasets-*.whl"))[0]) as z:
        z.extractall(os.path.join(tmp, "vega"))
    for pkg in ("@octokit/fixtures@23.1.1", "pnpm@9.15.0"):
        run(["npm", "pack", "-q", pkg], tmp)
    for name in ("octokit", "pnpm"):
        os.makedirs(os.path.join(tmp, name))
        tgz = glob.glob(os.path.join(tmp, f"*{name}*.tgz"))[0]
        run(["tar", "xzf", tgz, "-C", os.path.join(tmp, name)], tmp)
    run([sys.executable, "-m", "pip", "install", "-q", "--target", os.path.join(tmp, "uvpkg"), "uv"], tmp)
    proj = os.path.join(tmp, "proj")
    os.makedirs(proj)
    with open(os.path.join(proj, "pyproject.toml"), "w") as fh:
        fh.write('[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n'
                 'dependencies = ["flask>=3", "requests>=2.31", "rich>=13", "pydantic>=2.5", '
                 '"httpx>=0.27"]\n')
    run([os.path.join(tmp, "uvpkg", "bin", "uv"), "lock", "-q"], proj)
    return {"data": os.path.join(tmp, "vega", "vega_datasets", "_data"), "proj": proj,
            "octokit": os.path.join(tmp, "octokit", "package"), "pnpm": os.path.join(tmp, "pnpm", "package")}


def _null_names(text: str, field: str) -> list[str]:
    """Name lexemes of the cars whose ``field`` is null (the anomalous rows)."""
    cars = json.loads(text)
    return [json.dumps(c["Name"]) for c in cars if c.get(field) is None]


def json_cases(d: dict) -> None:
    """jq / cat / curl outputs of JSON documents."""
    data = d["data"]
    cars = open(os.path.join(data, "cars.json")).read()
    nulls = _null_names(cars, "Miles_per_Gallon")[:6] + _null_names(cars, "Horsepower")[:6]
    case("data-json-cars-jq", "json", "jq . cars.json", data,
         ['"Name"', '"Miles_per_Gallon"', '"Horsepower"'] + nulls,
         note="jq pretty-print of vega_datasets' cars.json; rows with null fields are the anomalies")
    case("data-json-cars-stream-fail", "json",
         "jq '.[] | {Name, hp_per_cyl: (.Horsepower / .Cylinders)}' cars.json", data,
         lambda out: [out.splitlines()[1]], note="jq stops at the first car with a null Horsepower")
    for scen in ("release-assets", "project-cards"):
        rel = f"scenarios/api.github.com/{scen}/normalized-fixture.json"
        records = json.load(open(os.path.join(d["octokit"], rel)))
        odd = [r for r in records if r.get("status") != 200]
        facts = ['"status"', '"path"'] + [json.dumps(r["path"]) for r in odd][:6] + \
            [str(r["status"]) for r in odd][:3]
        case(f"data-json-octokit-{scen}", "json", f"cat {rel}", d["octokit"], facts,
             note="a recorded GitHub API session from @octokit/fixtures (npm)")
    pkgs = run(["python3", "-m", "pip", "list", "--format=json"], data)[1]
    with open(os.path.join(data, "packages.json"), "w") as fh:
        fh.write(pkgs)
    names = [json.dumps(p["name"]) for p in json.loads(pkgs)]
    case("data-json-packages-jq", "json", "jq . packages.json", data, names[:3] + names[-3:],
         note="`python3 -m pip list --format=json` of the machine's interpreter, pretty-printed by jq")
    pkg = open(os.path.join(d["pnpm"], "package.json")).read()
    case("data-json-package-json-cat", "json", "cat package.json", d["pnpm"],
         ['"name"', '"version"', json.loads(pkg)["version"]], verbatim=True,
         note="pnpm's package.json: a manifest tools rewrite, must stay byte-exact")


def table_cases(d: dict) -> None:
    """head / sqlite3 outputs of CSV and TSV tables."""
    data = d["data"]
    for table, name in (("weather", "seattle-weather.csv"), ("airports", "airports.csv")):
        run(["sqlite3", "tables.db", f".import --csv {name} {table}"], data)
    air = open(os.path.join(data, "airports.csv")).read().splitlines()
    gaps = [line for line in air[:1500] if ",," in line][:8]
    case("data-csv-airports-head", "csv", "head -n 1500 airports.csv", data, [air[0]] + gaps,
         note="vega_datasets airports.csv; rows with empty city/state are the anomalies")
    case("data-csv-weather-sqlite", "csv",
         "sqlite3 -csv -header tables.db 'select * from weather'", data,
         lambda out: [out.splitlines()[0], out.splitlines()[1], out.splitlines()[-1]],
         note="sqlite3 CSV output of seattle-weather")
    case("data-csv-weather-sqlite-fail", "csv",
         "sqlite3 -csv -header tables.db 'select * from weather; select * from forecast'", data,
         lambda out: [out.splitlines()[0]], note="the second query names a missing table: exit 1")
    case("data-tsv-airports-sqlite", "tsv",
         "sqlite3 -tabs -header tables.db 'select * from airports'", data,
         lambda out: [out.splitlines()[0]] + [r for r in out.splitlines() if "\t\t" in r][:6],
         note="sqlite3 tab-separated output of airports; rows with empty fields are anomalies")
    import numpy
    hexcsv = os.path.join(os.path.dirname(numpy.__file__), "random", "tests", "data", "sfc64-testset-1.csv")
    case("data-csv-random-hex-head", "csv", f"head -n 800 {hexcsv}", data,
         lambda out: out.splitlines()[:2] + out.splitlines()[-1:],
         note="numpy's sfc64 test vectors: random hex, incompressible (gzip probe skips sampling)")


def tree_cases(d: dict) -> None:
    """YAML (yq, head of pnpm's lock.yaml) and TOML (uv.lock)."""
    data = d["data"]
    cars = open(os.path.join(data, "cars.json")).read()
    names = [n.strip('"') for n in _null_names(cars, "Miles_per_Gallon")[:5]]
    case("data-yaml-cars-yq", "yaml", "yq -y . cars.json", data,
         ["- Name: " + n for n in names] + ["Miles_per_Gallon: null"],
         note="yq renders cars.json as YAML; items with null fields are the anomalies")
    lock = "dist/node_modules/.pnpm/lock.yaml"
    case("data-yaml-pnpm-lock-head", "yaml", f"head -n 1500 {lock}", d["pnpm"],
         lambda out: [out.splitlines()[0], "packages:"], note="head of the lock.yaml bundled in pnpm")
    case("data-toml-uv-lock-head", "toml", "head -n 500 uv.lock", d["proj"],
         lambda out: [out.splitlines()[0], "[[package]]", 'name = "annotated-types"'],
         note="uv.lock resolved by uv for flask/requests/rich/pydantic/httpx")
    case("data-toml-uv-lock-cat", "toml", "cat uv.lock", d["proj"],
         ["[[package]]", 'name = "flask"'], verbatim=True, note="a lock file: byte-exact")


def main() -> None:
    """Capture every data fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        d = fetch(tmp)
        json_cases(d)
        table_cases(d)
        tree_cases(d)


if __name__ == "__main__":
    main()
