"""The explicit, greppable registry of every stage a graph may name.

Graphs name stages by these keys, never by Python import path. Each entry says which phase the
stage belongs to, which payload classes it accepts, its output ports, where its code and its params
model live (as ``"module:attr"`` strings, so the hot path imports only the stages a plan uses and
never pydantic), and whether it may write declared summary lines. Users add stages of their own
through an entry point group (``plugins.py``); a built-in key always wins.

A new built-in stage need not be listed here: a stage module that declares itself
(``STAGE = Stage(...)`` next to its ``run``, see ``declare.py``) is added to :data:`REGISTRY` by the
same import (``grep -rn '^STAGE = Stage(' stages/`` lists those).
"""

from __future__ import annotations

import os
from typing import Any

from thresher.dataflow.contract import StageInfo

from thresher.stages.plugins import Stages

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any

_P = "thresher.stages.params:"


def _entry(key: str, phase: str, module: str, params: str, summary: str, **kw: Any) -> StageInfo:
    return StageInfo(key, phase, f"thresher.stages.{module}:run", _P + params, summary, **kw)


REGISTRY: dict[str, StageInfo] = {s.key: s for s in (
    _entry("read", "read", "ingest.read", "ReadParams",
           "decode bytes, strip ANSI/OSC escapes and carriage-return progress redraws, clip huge lines"),
    _entry("guard", "guard", "ingest.guard", "GuardParams",
           "send structured data, tiny outputs and small failures through the `verbatim` port",
           ports=("out", "verbatim")),
    _entry("score", "score", "ingest.score", "ScoreParams",
           "tier every line: critical (errors, failures, locations), important, noise"),
    _entry("drop-noise", "distill", "generic.drop_noise", "DropNoiseParams",
           "drop the lines Score marked as noise (progress, banners); never critical lines"),
    _entry("filter", "distill", "generic.filter", "FilterParams",
           "declarative filters (YAML/TOML): the first whose `match` hits the command strips, "
           "keeps, replaces or short-circuits lines; critical lines never dropped or altered",
           emits_summaries=True),
    _entry("distill-pytest", "distill", "runners.distill_pytest", "DistillPytestParams",
           "pytest: drop the session header and passing progress (counted), fold -v PASSED rows per "
           "file (counted); keep failures, errors, warnings and the final counts line byte-exact", emits_summaries=True),
    _entry("distill-unittest", "distill", "runners.distill_unittest", "DistillUnittestParams",
           "unittest: drop passing progress dots (counted), fold -v ok rows per module (counted); "
           "keep failures and the Ran/OK lines",
           emits_summaries=True),
    _entry("distill-npm", "distill", "runners.distill_npm", "DistillNpmParams",
           "npm/pnpm/yarn: drop deprecation, funding and progress lines and passing tests (counted); "
           "keep error blocks, failures and the added/audit summaries", accepts=("npm",),
           emits_summaries=True),
    _entry("distill-pip", "distill", "runners.distill_pip", "DistillPipParams",
           "pip/uv install: fold Collecting/Downloading/cached/already-satisfied runs into counts; "
           "keep requested packages, errors and the Successfully installed line", accepts=("pip",),
           emits_summaries=True),
    _entry("distill-git-status", "distill", "vcs.distill_git_status", "DistillGitStatusParams",
           "git status: drop the (use \"git ...\") hints; over budget, water-fill the file rows of "
           "every section (counted per section)", ports=("out", "done"), emits_summaries=True),
    _entry("distill-git-patch", "distill", "vcs.distill_git_patch", "DistillGitPatchParams",
           "git diff/show/log, diff -u: over budget keep commit headers, subjects, file and hunk "
           "headers; drop whole hunk bodies, message bodies and stat rows (counted)",
           ports=("out", "done"), emits_summaries=True),
    _entry("distill-git-blame", "distill", "vcs.distill_git_blame", "DistillGitBlameParams",
           "git blame: the commit prefix once per run of rows (the rest as their `N) code`); over "
           "budget keep definition lines and the most recent changes (counted)",
           ports=("out", "done"), emits_summaries=True),
    _entry("distill-search", "distill", "listings.distill_search", "DistillSearchParams",
           "grep/rg/git grep: over budget drop context, then water-fill matches across files "
           "(definitions first, counted per file); lines byte-exact", ports=("out", "done"), emits_summaries=True),
    _entry("distill-listing", "distill", "listings.distill_listing", "DistillListingParams",
           "ls/find/fd/tree/du: over budget keep the shallowest entries of every directory first "
           "(counted); rows byte-exact", ports=("out", "done"), emits_summaries=True),
    _entry("code-outline", "distill", "documents.code_outline", "CodeOutlineParams",
           "large source file: imports, signatures, first docstring lines; bodies elided with "
           "exact line ranges (tree-sitter)", emits_summaries=True,
           # tree-sitter's parse is one C call (no timer can stop it) whose tree takes ~25x the
           # source in memory: past 4 MiB (~0.5 s here) the file gets head/tail with the footer
           max_input=4 << 20),
    _entry("lossless", "distill", "generic.lossless", "LosslessParams",
           "over budget: reversible rewrites verified to round-trip byte-exact (JSON table or "
           "compact form; runs of identical or blank lines folded with exact counts)",
           emits_summaries=True),
    _entry("crush-json", "distill", "data.crush_json", "CrushJsonParams",
           "JSON over budget: structure with long arrays/objects sampled (anomalous items kept, "
           "exact counts), schema lines, long strings cut; leaves via `crushed`",
           ports=("out", "crushed"), emits_summaries=True),
    _entry("crush-table", "distill", "data.crush_table", "CrushTableParams",
           "CSV/TSV over budget: header, column schema, every anomalous row, head and tail rows "
           "byte-exact (counted)", emits_summaries=True),
    _entry("crush-yaml", "distill", "data.crush_yaml", "CrushTreeParams",
           "YAML over budget: long lists/maps sampled (anomalous items kept), long text blocks cut; "
           "kept lines byte-exact, counted", emits_summaries=True),
    _entry("crush-toml", "distill", "data.crush_toml", "CrushTreeParams",
           "TOML over budget: arrays of tables sampled (anomalous entries kept), long arrays cut; "
           "kept lines byte-exact, counted", emits_summaries=True),
    _entry("markdown-outline", "distill", "documents.markdown_outline", "MarkdownOutlineParams",
           "long markdown: every heading, the best lines by BM25/position/salience, sections "
           "elided with exact counts; `--mode section:NAME` slices one section", emits_summaries=True),
    _entry("distill-env", "distill", "listings.distill_env", "DistillEnvParams",
           "env/printenv listings and .env files: every name kept; secret values (by name or shape) and huge noise values "
           "replaced by NAME=[thresher: value masked, N chars] summary lines", accepts=("env",),
           emits_summaries=True),
    _entry("html-outline", "distill", "documents.html_outline", "HtmlOutlineParams",
           "long HTML page: heading, <dt> and anchor rows, the best visible-text rows (script, "
           "style, nav dropped), shown as markdown, the rest elided with exact counts; sections "
           "by name", emits_summaries=True),
    _entry("mask-json", "distill", "data.mask_json", "MaskJsonParams",
           "JSON: string values under credential keys (password, secret, token, apiKey...) or "
           "shaped like credentials replaced in their line by \"[thresher: value masked, N chars]\"; "
           "leaves via `masked`", ports=("out", "masked"), emits_summaries=True),
    _entry("distill-http", "distill", "logs.distill_http", "DistillHttpParams",
           "curl/wget: drop progress meters, data markers, TLS record lines and wget dot rows "
           "(counted); headers, bodies and errors byte-exact", accepts=("http",), emits_summaries=True),
    _entry("prose", "distill", "documents.prose", "ProseParams",
           "long prose (text files, manual pages): headings, definition terms and the best lines "
           "by BM25/position/salience, the rest elided with exact counts", emits_summaries=True),
    _entry("distill-docker", "distill", "runners.distill_docker", "DistillDockerParams",
           "docker build/pull: drop digests, status and layer bookkeeping and the output of steps "
           "that passed (counted); a failing step stays whole; ps/images rows untouched",
           accepts=("docker",), emits_summaries=True),
    _entry("distill-kubectl", "distill", "listings.distill_kubectl", "DistillKubectlParams",
           "kubectl get over budget: keep the header and every unhealthy row (status, not ready, "
           "restarts), drop healthy rows with their exact count", accepts=("kubectl",),
           emits_summaries=True),
    _entry("distill-cargo", "distill", "runners.distill_cargo", "DistillCargoParams",
           "cargo: drop Compiling/Downloaded progress and passing test rows (counted); keep every "
           "diagnostic, failure and test result line; over budget drop code snippets",
           emits_summaries=True),
    _entry("distill-go", "distill", "runners.distill_go", "DistillGoParams",
           "go test/build/vet: drop === RUN banners, [no test files] rows and module downloads "
           "(counted), fold -v --- PASS rows per package (counted); keep failures, panics, ok/FAIL "
           "lines and diagnostics", emits_summaries=True),
    _entry("distill-build", "distill", "runners.distill_build", "DistillBuildParams",
           "make/gcc/clang/cmake: drop directory changes and build progress (counted); keep "
           "commands and diagnostics; over budget drop code snippets",
           emits_summaries=True),
    _entry("distill-log", "distill", "logs.distill_log", "DistillLogParams",
           "text logs: group lines by template (timestamps, numbers, ids, paths masked); each "
           "template once, byte-exact, with the exact count and last timestamp of its repeats; "
           "distinct error messages and stack traces stay", emits_summaries=True),
    _entry("distill-jsonl", "distill", "data.distill_jsonl", "DistillJsonlParams",
           "JSON Lines: one example of each kind of record, every anomalous record, first and "
           "last; one summary line with exact counts per status/message value", emits_summaries=True),
    _entry("distill-lint", "distill", "runners.distill_lint", "DistillLintParams",
           "ruff/mypy/tsc/eslint/shellcheck: over budget drop the code snippets under each "
           "diagnostic (counted), then say a file's repeated message once (the other locations on "
           "one counted line); every finding's location kept", emits_summaries=True),
    _entry("collapse", "collapse", "emit.collapse", "CollapseParams",
           "fold runs of near-identical lines into the first one and a line with the exact count",
           emits_summaries=True),
    _entry("trim", "collapse", "emit.trim", "TrimParams",
           "keep every critical line, then head and tail lines up to the budget"),
    _entry("ledger", "ledger", "emit.ledger", "LedgerParams",
           "fold blocks this reader (session + subagent) was already delivered into one line "
           "naming `thresher expand HANDLE --lines A-B`; never error lines", emits_summaries=True),
    _entry("route", "route", "emit.route", "RouteParams",
           "choose the emission (compressed or raw) against the guardrail, with the one footer "
           "(the engine's emission rule)", emits_summaries=True),
    _entry("persist", "persist", "emit.persist", "PersistParams",
           "store the raw original in the archive before any marker naming its handle is shown"),
)}


def _declared() -> dict[str, StageInfo]:
    """The entries of the stages that declare themselves in their own module (``declare.py``)."""
    from .declare import declared
    out: dict[str, StageInfo] = {}
    for module, s in declared():
        if s.key in REGISTRY or s.key in out:
            other = REGISTRY[s.key].impl if s.key in REGISTRY else out[s.key].impl
            raise ValueError(f"{module}: stage key {s.key!r} is already {other}'s: rename one")
        kw: dict = {"ports": s.ports, "emits_summaries": s.emits_summaries, "max_input": s.max_input}
        if s.accepts is not None:
            kw["accepts"] = s.accepts
        out[s.key] = StageInfo(s.key, s.phase, f"{module}:run", f"thresher.stages.declare:{module}",
                               s.summary, **kw)
    return out


REGISTRY.update(_declared())


def known_keys() -> list[str]:
    """The registry keys, sorted (used in error messages that list the alternatives)."""
    return sorted(REGISTRY)


def code_files() -> list[str]:
    """The sources a compiled plan depends on besides the graph files: this registry, the params
    models, the user-stage loader, the declarations' reader, and every stage module (a stage may
    declare its own entry and params, ``declare.py``): an edit to one rebuilds the cached plans."""
    here = os.path.dirname(os.path.abspath(__file__))
    files = [os.path.join(here, n) for n in ("registry.py", "params.py", "plugins.py", "declare.py")]
    return files + sorted(e.path for family in os.scandir(here) if family.is_dir() and family.name != "lib"
                          and not family.name.startswith(("_", ".")) for e in os.scandir(family.path)
                          if e.name.endswith(".py"))


def stages() -> Stages:
    """Every stage a graph may name: :data:`REGISTRY`, then users' own (entry point group
    ``thresher.stages``, loaded only when a graph names a stage that is not built in)."""
    return Stages(REGISTRY)
