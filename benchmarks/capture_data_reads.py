"""Capture fixtures of data files the agent reads (issue 16, mechanisms 1 and 12) by running real tools.

`cat` of CSV/YAML/TOML/JSON files and `python3 -m json.tool` of JSON files that published packages
ship, fetched with their ordinary clients: the scikit-learn wheel (its bundled dataset CSVs), the
boto3 wheel (resource model JSON), the ansible-core sdist (config definitions, changelog, a test
playbook, an inventory JSON), the mime-db npm package (db.json) and Debian's librust-clap-dev
(clap's normalised Cargo.toml). None of these sources was used by earlier fixtures or the corpus.
must_keep facts are picked from the real output (preamble lines, extreme rows, anomalous records,
top-level names).
Run: ``python benchmarks/capture_data_reads.py`` (needs pip, npm, apt-get download and network
access to PyPI, npm and Debian); it rewrites tests/fixtures/read-*.json.
"""

from __future__ import annotations

import csv
import glob
import io
import json
import os
import re
import sys
import tarfile
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from capture_data import case
from capture_fixtures import run

SKLEARN, BOTO3, ANSIBLE = "scikit-learn==1.5.2", "boto3==1.35.0", "ansible-core==2.17.5"
MIME_DB, CLAP_DEB = "mime-db@1.53.0", "librust-clap-dev"


def fetch(tmp: str) -> dict:
    """Download and unpack the packages the fixtures read; return their folders."""
    run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
         SKLEARN, BOTO3, "-d", "wh"], tmp)
    run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
         ANSIBLE, "-d", "sd"], tmp)
    for pattern, member, dest in (("wh/scikit_learn-*.whl", "sklearn/datasets/data/", "skl"),
                                  ("wh/boto3-*.whl", "boto3/data/", "b3")):
        with zipfile.ZipFile(glob.glob(os.path.join(tmp, pattern))[0]) as z:
            z.extractall(os.path.join(tmp, dest), [n for n in z.namelist() if n.startswith(member)])
    with tarfile.open(glob.glob(os.path.join(tmp, "sd", "ansible_core-*.tar.gz"))[0]) as t:
        t.extractall(os.path.join(tmp, "ans"), filter="data")
    run(["npm", "pack", "-q", MIME_DB], tmp)
    with tarfile.open(glob.glob(os.path.join(tmp, "mime-db-*.tgz"))[0]) as t:
        t.extractall(os.path.join(tmp, "mime"), filter="data")
    run(["apt-get", "download", CLAP_DEB], tmp)
    run(["dpkg", "-x", glob.glob(os.path.join(tmp, "librust-clap-dev_*.deb"))[0], "deb"], tmp)
    return {"skl": os.path.join(tmp, "skl", "sklearn", "datasets", "data"),
            "b3": os.path.join(tmp, "b3", "boto3", "data"),
            "ans": glob.glob(os.path.join(tmp, "ans", "ansible_core-*"))[0],
            "mime": os.path.join(tmp, "mime", "package"),
            "clap": glob.glob(os.path.join(tmp, "deb", "usr", "share", "cargo", "registry", "clap-*"))[0]}


def _extremes(out: str, skip: int, col: int) -> list[str]:
    """The preamble lines, and the rows holding the smallest and largest value of column ``col``."""
    lines = out.splitlines()
    rows = list(csv.reader(io.StringIO("\n".join(lines[skip:]))))
    lo = min(range(len(rows)), key=lambda i: float(rows[i][col]))
    hi = max(range(len(rows)), key=lambda i: float(rows[i][col]))
    return lines[:skip] + [lines[skip + lo], lines[skip + hi]]


def csv_cases(d: dict) -> None:
    """`cat` of the dataset CSVs scikit-learn ships (a count/labels preamble line, no header)."""
    case("read-csv-sklearn-breast-cancer", "csv", "cat breast_cancer.csv", d["skl"],
         lambda out: _extremes(out, 1, 0),
         note=f"{SKLEARN} wheel: 569 rows x 31 columns, first line '569,30,malignant,benign'")
    case("read-csv-sklearn-boston", "csv", "cat boston_house_prices.csv", d["skl"],
         lambda out: _extremes(out, 2, 0),
         note=f"{SKLEARN} wheel: a count line, then the header, then 506 rows")
    case("read-csv-sklearn-wine", "csv", "cat wine_data.csv", d["skl"],
         lambda out: _extremes(out, 1, 12),
         note=f"{SKLEARN} wheel: 178 rows x 14 columns (within the budget: read whole)")


def _top_keys(out: str) -> list[str]:
    return [m.group(0) for m in re.finditer(r"(?m)^[A-Za-z_][\w.-]*:", out)]


def yaml_cases(d: dict) -> None:
    """`cat` of ansible-core's YAML: config definitions, the changelog, a test playbook."""
    case("read-yaml-ansible-config-base", "yaml", "cat lib/ansible/config/base.yml", d["ans"],
         lambda out: _top_keys(out)[:2] + ["default: ~/.ansible"],
         note=f"{ANSIBLE} sdist: ~200 config settings, each a map with name/description/env/ini")
    case("read-yaml-ansible-changelog", "yaml", "cat changelogs/changelog.yaml", d["ans"],
         lambda out: _top_keys(out) + re.findall(r"(?m)^  2\.17\.\d+:$", out)[:1],
         note=f"{ANSIBLE} sdist: release changelog fragments by version")
    case("read-yaml-ansible-file-tasks", "yaml", "cat test/integration/targets/file/tasks/main.yml",
         d["ans"], lambda out: [ln for ln in out.splitlines() if ln.startswith("- name:")][:2],
         note=f"{ANSIBLE} sdist: an integration-test playbook (a list of tasks)")


def json_cases(d: dict) -> None:
    """`python3 -m json.tool` / `cat` of JSON data files."""
    res = os.path.join(d["b3"], "ec2", "2016-11-15")
    case("read-json-boto3-ec2-resources", "json", "python3 -m json.tool resources-1.json", res,
         lambda out: ['"service"', '"resources"'] + [json.dumps(k) for k in json.loads(out)["resources"]][:3],
         note=f"{BOTO3} wheel: the EC2 resource model, objects nested 6 deep")
    inv = os.path.join(d["ans"], "test", "integration", "targets", "inventory_script")
    case("read-json-ansible-inventory", "json", "python3 -m json.tool inventory.json", inv,
         lambda out: ['"_meta"', '"hostvars"'] + [json.dumps(h) for h in json.loads(out)["all"]["children"]][:3],
         note=f"{ANSIBLE} sdist: a dynamic-inventory answer of a VMware simulator")
    case("read-json-mime-db", "json", "cat db.json", d["mime"],
         lambda out: [json.dumps(k) for k in list(json.loads(out))[:2]] + ['"source"', '"compressible"'],
         note=f"{MIME_DB} (npm): 2446 media types, a map of small objects")


def toml_cases(d: dict) -> None:
    """`cat` of a crate manifest as Debian packages it."""
    case("read-toml-clap-cargo", "toml", "cat Cargo.toml", d["clap"],
         lambda out: ["[package]", 'name = "clap"'] + re.findall(r"(?m)^version = .*$", out)[:1],
         note=f"Debian {CLAP_DEB}: clap's normalised Cargo.toml (features and dependencies)")


def main() -> None:
    """Capture every read fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        d = fetch(tmp)
        csv_cases(d)
        yaml_cases(d)
        json_cases(d)
        toml_cases(d)


if __name__ == "__main__":
    main()
