"""Capture fixtures of structured documents the agent reads (issue 16 §1, §12) by running real tools.

Three sub-classes, none from a source used before by the fixtures or the corpus:
- JSON a command prints for the agent's terminal: ``npm view lodash|axios --json``, ``pip install
  --dry-run --quiet --report -`` of requests + rich, ``pip list --format=json`` and ``pip inspect``
  of a fresh venv;
- YAML files shipped in packages: kin-openapi's OpenAPI test documents (Debian
  golang-github-getkin-kin-openapi-dev) and a mkdocs-material social-card layout (PyPI wheel);
- TOML files shipped in packages: the Cargo.toml of web-sys, tokio and nix (Debian librust-*-dev).
must_keep facts are what an agent needs from the real output: the top-level keys, the version and
names asked about, every path of an API, every table header of a manifest.
Run: ``python benchmarks/capture_structured.py`` (needs npm, pip, apt-get download, dpkg and network
access to npm, PyPI and Debian); it rewrites tests/fixtures/struct-*.json.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from capture_fixtures import run, save

SRC = "benchmarks/capture_structured.py"
DEBS = ("golang-github-getkin-kin-openapi-dev", "librust-web-sys-dev", "librust-tokio-dev",
        "librust-nix-dev")
MKDOCS = "mkdocs-material==9.8.2"


def case(cid: str, pclass: str, command: str, cwd: str, keep, note: str, env=None) -> dict:
    """Run ``command`` in a shell in ``cwd`` and save it as fixture ``cid``; ``keep`` picks the
    must_keep facts from stdout (a function of it)."""
    code, out, err = run(["bash", "-c", command], cwd, env)
    facts = keep(out)
    missing = [f for f in facts if f not in out]
    assert not missing, (cid, missing)
    save({"id": cid, "class": pclass, "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts, "verbatim": False, "source": f"{SRC}: {note}"})


def _top_keys(out: str) -> list[str]:
    return [json.dumps(k) for k in json.loads(out)]


def _npm_view(out: str) -> list[str]:
    doc = json.loads(out)
    return _top_keys(out) + [json.dumps(doc["version"]), json.dumps(doc["license"])]


def _report(out: str) -> list[str]:
    doc = json.loads(out)
    return _top_keys(out) + [json.dumps(i["metadata"]["name"]) for i in doc["install"]]


def _names(out: str) -> list[str]:
    return [json.dumps(p["name"]) for p in json.loads(out)]


def _inspect(out: str) -> list[str]:
    doc = json.loads(out)
    return _top_keys(out) + [json.dumps(k) for k in doc["installed"][0]] + \
        [json.dumps(doc["pip_version"])]


def _yaml_paths(out: str) -> list[str]:
    """The top-level keys and every path of an OpenAPI document (as the lines that name them),
    and the name of every component schema."""
    import yaml
    lines = out.splitlines()
    top = [ln for ln in lines if re.match(r"^[A-Za-z]\w*:", ln)]
    doc = yaml.safe_load(out)
    paths = [ln for ln in lines if re.match(r"^\s+/\S*:\s*$", ln) and ln.strip()[:-1] in doc["paths"]]
    return top + paths + list(doc.get("components", {}).get("schemas", {}))


def _yaml_top(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if re.match(r"^[A-Za-z]\w*:", ln)]


def _toml_tables(out: str) -> list[str]:
    """Every table header, and the package's name and version lines."""
    lines = out.splitlines()
    return [ln for ln in lines if re.match(r"^\[", ln)] + \
        [ln for ln in lines if re.match(r"^(?:name|version) = ", ln)][:2]


def json_cases(tmp: str) -> None:
    for pkg in ("lodash", "axios"):
        case(f"struct-json-npm-view-{pkg}", "json", f"npm view {pkg} --json", tmp, _npm_view,
             f"npm registry manifest of {pkg} as the npm CLI prints it")
    case("struct-json-pip-report-requests-rich", "json",
         "pip install --dry-run --ignore-installed --quiet --report - 'requests==2.32.3' "
         "'rich==13.9.4'", tmp, _report, "pip's installation report for a dry-run resolve")
    venv = os.path.join(tmp, "venv")
    run([sys.executable, "-m", "venv", venv], tmp)
    run([os.path.join(venv, "bin", "pip"), "install", "-q", "requests==2.32.3", "rich==13.9.4"], tmp)
    env = {**os.environ, "PATH": os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"],
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    case("struct-json-pip-list", "json", "pip list --format=json", tmp, _names,
         "a venv with requests and rich: every package (small: read whole)", env)
    case("struct-json-pip-inspect", "json", "pip inspect", tmp, _inspect,
         "pip's inspection report of that venv", env)


def fetch(tmp: str) -> dict:
    """Download and unpack the packages the file fixtures read; return their folders."""
    run(["apt-get", "download", *DEBS], tmp)
    for deb in glob.glob(os.path.join(tmp, "*.deb")):
        run(["dpkg", "-x", deb, "deb"], tmp)
    run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
         MKDOCS, "-d", "wh"], tmp)
    with zipfile.ZipFile(glob.glob(os.path.join(tmp, "wh", "mkdocs_material-*.whl"))[0]) as z:
        z.extractall(os.path.join(tmp, "mk"), [n for n in z.namelist() if n.endswith(".yml")])
    reg = os.path.join(tmp, "deb", "usr", "share", "cargo", "registry")
    return {"kin": glob.glob(os.path.join(tmp, "deb", "usr", "share", "gocode", "src", "github.com",
                                          "getkin", "kin-openapi", "openapi3", "testdata"))[0],
            "mk": os.path.join(tmp, "mk", "material", "plugins", "social", "templates", "default"),
            **{c: glob.glob(os.path.join(reg, f"{c}-*"))[0] for c in ("web-sys", "tokio", "nix")}}


def file_cases(d: dict) -> None:
    case("struct-yaml-kin-openapi-lxkns", "yaml", "cat lxkns.yaml", d["kin"], _yaml_paths,
         "kin-openapi test document (OpenAPI 3 of lxkns), 42 KB")
    case("struct-yaml-kin-openapi-link", "yaml", "cat link-example.yaml", d["kin"], _yaml_paths,
         "kin-openapi test document with links (within the budget: read whole)")
    case("struct-yaml-mkdocs-social-variant", "yaml", "cat variant.yml", d["mk"], _yaml_top,
         f"{MKDOCS} wheel: a social card layout")
    for crate in ("web-sys", "tokio", "nix"):
        case(f"struct-toml-{crate}-cargo", "toml", "cat Cargo.toml", d[crate], _toml_tables,
             f"Debian librust-{crate}-dev: the crate's normalised Cargo.toml")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        if "--files-only" not in sys.argv:
            json_cases(tmp)
        file_cases(fetch(tmp))


if __name__ == "__main__":
    main()
