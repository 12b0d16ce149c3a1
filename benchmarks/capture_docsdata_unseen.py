"""Capture real file reads from sources no earlier fixture used (issue 16: "keeps every fact in
clearly fewer cases on outputs it has never seen").

Every case is a file as an agent reads it (``cat F``, ``python3 -m json.tool F``, ``man -P cat X``,
``X --help``), run for real here, from sources the other capture scripts do not touch: Go standard
library packages, /usr/include headers, CPython standard modules, OpenJDK classes, an npm
``@types`` tarball, Debian's /usr/share/doc (Node.js API docs, libxslt HTML), distro-info and
numpy test CSVs, iso-codes and cfn-lint JSON, Google Cloud SDK YAML, rustup's channel manifest
and urllib3's pyproject TOML, man pages and ``--help`` of tools not captured before.

``must_keep`` follows one rule per class, fixed before looking at thresher's output and computed
by tools independent of the outline/crushers under test:
- code: every definition head universal-ctags (its own parsers, not tree-sitter) reports that is
  not inside a function: functions, methods, prototypes, classes, structs, interfaces and their
  method specs, Python methods (ctags' Python "member"), enums, unions, traits, type
  definitions (fields, variables, constants, macros and
  enumerators excluded); the fact is the tag's source line from its first non-blank character
  to the end of the name, with ``(`` when it follows (``func (c *Ctx) Err(``, ``class Foo``);
- CSV/TSV: the header line, the first and last rows, every row with an empty cell (at most 20)
  and every distinct value (4+ chars) of a column with at most 12 distinct values;
- JSON: every top-level key (``"key"``), and for the largest array of objects the value of its
  identifying key (``name``/``id``/``alpha_2``/``code``) of the first and the last item and of
  every item whose set of keys differs from the most common one (the anomalies);
- YAML: every top-level key line (``key:``) and the first line of every item of a top-level
  sequence of mappings (``- name: x``), at most 60;
- TOML: every table header line (``[x]``, ``[[x]]``) once, at most 80;
- markdown: the text of every ATX heading of level 1-3; HTML: the text of every h1-h3;
- man / --help: every section heading (an unindented all-caps line) and the first option of
  every indented option line (``-r``, ``--reverse``; a table rule ``-----`` is none).
Usage: ``python benchmarks/capture_docsdata_unseen.py`` (needs ctags, go, a JDK src.zip, npm, man).
"""

from __future__ import annotations

import csv
import glob
import html.parser
import io
import json
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_fixtures import save

SRC = "benchmarks/capture_docsdata_unseen.py"
GO = "/usr/lib/go/src"
DEF_KINDS = {"function", "func", "method", "methodSpec", "prototype", "class", "struct",
             "interface", "enum", "union", "trait", "typedef", "type", "talias", "module",
             "namespace", "singletonMethod", "constructor"}
BODY_SCOPES = {"function", "func", "method", "constructor", "singletonMethod"}


def run(cmd: str, cwd: str | None = None) -> tuple[str, str, int]:
    """Run ``cmd`` in a shell (MANWIDTH 80, C.UTF-8); stdout, stderr, exit code."""
    p = subprocess.run(cmd, shell=True, capture_output=True, cwd=cwd,
                       env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8"))
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.returncode


def case(cid: str, klass: str, command: str, cwd: str, source: str, facts: list[str]) -> None:
    """Run ``command`` in ``cwd`` and save it with ``facts`` (those the output really holds)."""
    out, err, code = run(command, cwd)
    facts = [f for f in dict.fromkeys(facts) if f and f in out]
    if code or not facts:
        print(f"skip {cid}: exit {code}, {len(facts)} facts", file=sys.stderr)
        return
    save({"id": f"unseen-{cid}", "class": klass, "command": command, "exit_code": code,
          "stdout": out, "stderr": err, "must_keep": facts, "verbatim": False,
          "source": f"{SRC}: {source}"})
    print(f"unseen-{cid}: {len(out)} chars, {len(facts)} facts")


# -- code: ctags definition heads -----------------------------------------------------------------
def ctags_heads(path: str, text: str) -> list[str]:
    """The definition heads of ``path`` by universal-ctags (rule in the module docstring)."""
    p = subprocess.run(["ctags", "--output-format=json", "--fields=+nKzZl", "--kinds-C=+p",
                        "--kinds-C++=+p", "-f", "-", path], capture_output=True, text=True)
    lines, facts = text.split("\n"), []
    tags = [json.loads(t) for t in p.stdout.splitlines() if t.startswith("{")]
    for t in sorted(tags, key=lambda t: t.get("line", 0)):
        name, kind = t.get("name", ""), t.get("kind", "")
        python = t.get("language") == "Python"
        if kind == "member" and python:
            kind = "method"  # ctags' name for a Python method; elsewhere a member is a field
        if python and kind in ("namespace", "module"):
            continue  # ctags' Python "namespace"/"module" tags are imports
        scope = t.get("scopeKind")
        if kind not in DEF_KINDS or name.startswith("__anon") or scope in BODY_SCOPES \
                or (python and scope == "member"):
            continue
        line = lines[t["line"] - 1].strip() if 0 < t.get("line", 0) <= len(lines) else ""
        m = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", line)
        if m is None:
            continue
        end = m.end() + (1 if line[m.end():m.end() + 1] == "(" else 0)
        facts.append(line[:end])
    return facts


def code_case(cid: str, path: str, source: str, cwd: str | None = None) -> None:
    cwd = cwd or os.path.dirname(path)
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    rel = os.path.relpath(path, cwd)
    case(cid, "code", f"cat {shlex.quote(rel)}", cwd, source, ctags_heads(path, text))


def code_cases(tmp: str) -> None:
    for rel in ("context/context.go", "io/fs/fs.go", "text/template/parse/node.go",
                "encoding/json/decode.go", "go/token/token.go", "go/constant/value.go",
                "archive/tar/common.go", "cmd/compile/internal/ssa/gen/rulegen.go"):
        code_case("go-" + rel.split("/")[-2] + "-" + os.path.basename(rel)[:-3],
                  os.path.join(GO, rel), "Go standard library (Debian golang-go)", GO)
    for h in ("zlib.h", "sqlite3.h", "expat.h", "bzlib.h", "yaml.h", "gcrypt.h", "jpeglib.h"):
        code_case("c-" + h[:-2], os.path.join("/usr/include", h), "Debian -dev package header",
                  "/usr/include")
    stdlib = sysconfig.get_paths()["stdlib"]
    for mod in ("argparse.py", "dataclasses.py", "logging/handlers.py"):
        code_case("py-" + mod.replace("/", "-")[:-3], os.path.join(stdlib, mod),
                  "CPython standard library", stdlib)
    src_zip = next((z for z in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip") +
                                      glob.glob("/usr/lib/jvm/*/src.zip")) if os.path.isfile(z)), None)
    if src_zip:
        with zipfile.ZipFile(src_zip) as z:
            for member in ("java.base/java/util/HashMap.java",
                           "java.base/java/util/stream/Stream.java"):
                dest = os.path.join(tmp, "jdk", member)
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "wb") as fh:
                    fh.write(z.read(member))
                code_case("java-" + os.path.basename(member)[:-5].lower(), dest,
                          f"OpenJDK src.zip ({src_zip})", os.path.join(tmp, "jdk", "java.base"))
    out, _, code = run("npm pack --silent @types/lodash@4.17.13", tmp)
    if code == 0:
        with tarfile.open(os.path.join(tmp, out.strip())) as tf:
            tf.extractall(os.path.join(tmp, "npm"), filter="data")
        base = os.path.join(tmp, "npm")
        for rel in ("lodash/common/collection.d.ts", "lodash/common/lang.d.ts"):
            code_case("ts-lodash-" + os.path.basename(rel)[:-5], os.path.join(base, rel),
                      "npm @types/lodash@4.17.13", base)
    npm_js = "/usr/lib/node_modules/npm/lib"
    for rel in ("commands/install.js", "npm.js"):
        if os.path.exists(os.path.join(npm_js, rel)):
            code_case("js-npm-" + os.path.basename(rel)[:-3], os.path.join(npm_js, rel),
                      "the npm CLI's own sources (/usr/lib/node_modules/npm)", npm_js)


# -- data -----------------------------------------------------------------------------------------
def csv_facts(text: str, delimiter: str = ",") -> list[str]:
    lines = [ln for ln in text.split("\n") if ln and not ln.startswith("#")]
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter))
    facts = [lines[0], lines[1], lines[-1]]
    facts += [lines[i] for i, r in enumerate(rows) if i and any(c == "" for c in r)][:20]
    for col in range(len(rows[0])):
        values = {r[col] for r in rows[1:] if len(r) > col}
        if len(values) <= 12:
            facts += sorted(v for v in values if len(v) >= 4)
    return facts


def json_facts(text: str) -> list[str]:
    doc = json.loads(text)
    facts = [f'"{k}"' for k in doc] if isinstance(doc, dict) else []
    arrays = []

    def walk(node) -> None:
        if isinstance(node, list) and node and all(isinstance(x, dict) for x in node):
            arrays.append(node)
        for v in (node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()):
            walk(v)
    walk(doc)
    if arrays:
        big = max(arrays, key=len)
        key = next((k for k in ("name", "id", "alpha_2", "code", "alpha_3") if all(k in x for x in big)), None)
        if key:
            shapes = [tuple(sorted(x)) for x in big]
            common = max(set(shapes), key=shapes.count)
            picked = [big[0], big[-1]] + [x for x, s in zip(big, shapes) if s != common]
            facts += [json.dumps(x[key]) for x in picked if isinstance(x[key], (str, int))]
    return facts


def yaml_facts(text: str) -> list[str]:
    import yaml
    facts = [ln for ln in text.split("\n") if re.match(r"^[^\s#-][^:]*:(\s|$)", ln)]
    for doc in yaml.safe_load_all(text):
        items = doc if isinstance(doc, list) else [v for v in doc.values() if isinstance(v, list)
                                                      and len(v) > 3] if isinstance(doc, dict) else []
        if isinstance(doc, dict):
            items = [x for seq in items for x in seq]
        for item in items:
            if isinstance(item, dict) and item:
                k, v = next(iter(item.items()))
                if isinstance(v, (str, int)):
                    facts.append(f"- {k}: {v}")
    return [f.rstrip() for f in facts][:60]


def toml_facts(text: str) -> list[str]:
    return [ln.strip() for ln in text.split("\n") if re.match(r"^\s*\[\[?[^\]]+\]\]?\s*$", ln)][:80]


def data_cases() -> None:
    for name in ("debian.csv", "ubuntu.csv"):
        path = os.path.join("/usr/share/distro-info", name)
        case("csv-distro-info-" + name[:-4], "csv", f"cat {name}", "/usr/share/distro-info",
             "Debian distro-info-data", csv_facts(open(path).read()))
    np_data = glob.glob("/root/.pyenv/versions/*/lib/python3*/site-packages/numpy/_core/tests/data")
    if np_data:
        for name in ("umath-validation-set-log2.csv", "umath-validation-set-arcsinh.csv"):
            path = os.path.join(np_data[0], name)
            case("csv-numpy-" + name[:-4].split("-")[-1], "csv", f"cat {name}", np_data[0],
                 "numpy's umath validation sets (site-packages)", csv_facts(open(path).read()))
    iso = "/usr/share/iso-codes/json"
    for name, cmd in (("iso_3166-1.json", "python3 -m json.tool iso_3166-1.json"),
                      ("iso_4217.json", "cat iso_4217.json"), ("iso_639-2.json", "cat iso_639-2.json")):
        case("json-" + name[:-5].replace("_", "-"), "json", cmd, iso, "Debian iso-codes",
             json_facts(open(os.path.join(iso, name)).read()))
    cfn = glob.glob("/root/.pyenv/versions/*/lib/python3*/site-packages/cfnlint/data/schemas/"
                    "providers/us_east_1/aws-ec2-instance.json")
    if cfn:
        case("json-cfnlint-ec2-instance", "json", "cat aws-ec2-instance.json", os.path.dirname(cfn[0]),
             "cfn-lint's CloudFormation resource schema (site-packages)", json_facts(open(cfn[0]).read()))
    gcloud = "/usr/lib/google-cloud-sdk/lib/googlecloudsdk"
    for rel in ("command_lib/compute/tpus/tpu_vm/flags.yaml", "generated_clients/regen_apis_config.yaml",
                "schemas/compute/v1/Instance.yaml"):
        path = os.path.join(gcloud, rel)
        if os.path.exists(path):
            case("yaml-gcloud-" + os.path.basename(rel)[:-5].lower().replace("_", "-"), "yaml",
                 f"cat {rel}", gcloud, "Google Cloud SDK (Debian google-cloud-cli)",
                 yaml_facts(open(path).read()))
    manifest = glob.glob("/root/.rustup/toolchains/stable-*/lib/rustlib/multirust-channel-manifest.toml")
    if manifest:
        case("toml-rustup-channel", "toml", "cat multirust-channel-manifest.toml",
             os.path.dirname(manifest[0]), "rustup's stable channel manifest",
             toml_facts(open(manifest[0]).read()))
    u3 = "/usr/lib/google-cloud-sdk/platform/gsutil/third_party/urllib3"
    if os.path.exists(os.path.join(u3, "pyproject.toml")):
        case("toml-urllib3-pyproject", "toml", "cat pyproject.toml", u3,
             "urllib3 (vendored by gsutil)", toml_facts(open(os.path.join(u3, "pyproject.toml")).read()))


# -- documents ------------------------------------------------------------------------------------
class Headings(html.parser.HTMLParser):
    """The text of every h1-h3 element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.cur: list[str] | None = None

    def handle_starttag(self, tag, attrs) -> None:  # noqa: ARG002 - the HTMLParser signature
        if tag in ("h1", "h2", "h3"):
            self.cur = []

    def handle_endtag(self, tag) -> None:
        if tag in ("h1", "h2", "h3") and self.cur is not None:
            text = " ".join("".join(self.cur).split())
            if text:
                self.texts.append(text)
            self.cur = None

    def handle_data(self, data) -> None:
        if self.cur is not None:
            self.cur.append(data)


def doc_cases(tmp: str) -> None:
    api = "/usr/share/doc/nodejs/api"
    for name in ("net.md", "url.md", "diagnostics_channel.md"):
        text = open(os.path.join(api, name)).read()
        heads = [m.group(1).strip() for m in re.finditer(r"^#{1,3} (.+)$", text, re.M)]
        case("md-node-" + name[:-3].replace("_", "-"), "markdown", f"cat {name}", api,
             "Node.js API docs (Debian nodejs)", heads)
    xslt = "/usr/share/doc/libxslt1-dev/html/html"
    vg = "/usr/share/doc/valgrind/html"
    for folder, name, source in (
            (xslt, "libxslt-transform.html", "libxslt API reference (Debian libxslt1-dev)"),
            (xslt, "libxslt-xsltInternals.html", "libxslt API reference (Debian libxslt1-dev)"),
            (xslt, "libxslt-xsltutils.html", "libxslt API reference (Debian libxslt1-dev)"),
            (xslt, "libxslt-extensions.html", "libxslt API reference (Debian libxslt1-dev)"),
            (vg, "manual-core.html", "Valgrind user manual (Debian valgrind)"),
            (vg, "mc-manual.html", "Valgrind user manual (Debian valgrind)")):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            p = Headings()
            p.feed(open(path, encoding="utf-8", errors="replace").read())
            case("html-" + name[:-5].lower(), "html", f"cat {name}", folder, source, p.texts)
    for tool, cmd in (("make", "man -P cat make"), ("less", "man -P cat less"),
                      ("gcc-help", "gcc --help"), ("cp-help", "cp --help"),
                      ("sed-help", "sed --help")):
        out, _, _ = run(cmd)
        case(("man-" if cmd.startswith("man") else "help-") + tool, "man", cmd, tmp,
             "Debian manual pages" if cmd.startswith("man") else "the tool's own help",
             man_facts(out))


def man_facts(out: str) -> list[str]:
    """The man / --help rule (module docstring): section headings, first option of each line.
    A run of three or more dashes (a table's rule, ``-----+-----``) is no option."""
    facts = [ln.strip() for ln in out.split("\n") if re.match(r"^[A-Z][A-Z ]{2,}$", ln)]
    for ln in out.split("\n"):
        m = re.match(r"^\s+(--?[\w?#+.-][\w=.-]*)", ln)
        if m and not re.fullmatch(r"-{3,}", m.group(1)):
            facts.append(m.group(1))
    return facts


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        code_cases(tmp)
        data_cases()
        doc_cases(tmp)


if __name__ == "__main__":
    main()
