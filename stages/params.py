"""Params models of every stage (control plane only: the hot path gets plain dicts from the plan).

Every model forbids unknown keys, so a typo in a graph file is an error naming the node, not a
silently ignored setting.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from thresher.dataflow.regex_safety import check as check_regex


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _safe_regexes(value: list[str]) -> list[str]:
    """Refuse a regex param that does not compile or has a catastrophic-backtracking shape
    (project graphs are untrusted input: one such regex stalled every command for 89 s)."""
    import re
    for i, rx in enumerate(value):
        try:
            check_regex(rx)
        except re.error as exc:
            raise ValueError(f"item {i}: bad regex {rx!r}: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"item {i}: {exc}") from None
    return value


class ReadParams(_Params):
    """Read: decoding and cleaning."""
    strip_ansi: bool = Field(True, description="remove ANSI/OSC escape sequences")
    redraws: bool = Field(True, description="keep only the last state of carriage-return redraws")
    max_line_chars: int = Field(4000, ge=80, description="clip longer lines, saying how much was cut")


LOCK_FILE_READ = (r"(?:^|\s)(?:cat|bat)\s+(?:\S+/)?(?:[^\s/]*[.-]lock(?:\.json|\.ya?ml)?|"
                  r"npm-shrinkwrap\.json|go\.sum)\s*$")
"""``cat`` of a lock file (package-lock.json, yarn.lock, Cargo.lock, poetry.lock, pnpm-lock.yaml...):
tools write these, a copy of what was shown must be the file, whoever reads."""
DATA_FILE_READ = (r"(?:^|\s)(?:cat|bat|head|tail)\s+(?:-\S+\s+(?:\d+\s+)?)*[^\s|;&<>]+"
                  r"\.(?:json|jsonl|ndjson|geojson|ya?ml|toml|csv|tsv|tab)\s*$|"
                  r"(?:^|\s)(?:python[\d.]*\s+-m\s+json\.tool|jq|yq|gron)\s")
"""A data file shown (``cat x.csv``, ``python -m json.tool x.json``, ``jq``): byte-exact when a
program reads it, crushed when the agent does (issue 16)."""
DOCUMENT_FLAGS = (r"(?:^|\s)(?:--json(?:=\S*)?|-o\s*(?:json|yaml)|--output[= ](?:json|yaml)|"
                  r"--(?:output-)?format[= ](?:json|yaml))(?=\s|$)")
"""Flags that make a command print one JSON or YAML document (``npm view X --json``, ``kubectl get
-o yaml``): byte-exact when a program reads it, crushed over budget
when the agent's terminal does (issue 16). Event streams (``go test -json``, cargo's
``--message-format=json``: one JSON object a line) are not documents and stay byte-exact."""
DOCUMENT_COMMANDS = (r"(?:^|\s)(?:gh\s+api|(?:docker|podman)\s+(?:(?:container|image|network|volume)\s+)?"
                     r"inspect|cargo\s+metadata|pip3?\s+inspect)\b|(?:^|\s)--report[= ]-\s(?=[^|;&<>]*?(?:^|\s)(?:-q|--quiet)\b)|"
                     r"(?:^|\s)(?:-q|--quiet)\s[^|;&<>]*?--report[= ]-(?=\s|$)")
"""Commands that print a JSON document by default (``gh api``, ``docker inspect``, ``cargo
metadata``, ``pip inspect``; ``pip install --quiet --report -``, whose stdout is then the report
alone): the same rule as :data:`DOCUMENT_FLAGS`."""


class GuardParams(_Params):
    """Guard: what passes through byte-exact."""
    tiny_lines: int = Field(6, ge=0, description="outputs with at most this many lines pass whole")
    fail_small_lines: int = Field(40, ge=0,
                                  description="a failing command's output up to this many lines passes whole")
    structured_flags: list[str] = Field(
        default_factory=lambda: [r"--json\b", r"--porcelain\b", r"(?:^|\s)-o\s*json\b",
                                 r"--format[= ](?!(?:documentation|progress|doc)\b)", r"--pretty[= ]t?format:", r"--output[= ](?:json|yaml)\b",
                                 LOCK_FILE_READ],
        description="regexes on the command line that mean a program will parse the output")
    program_reads: list[str] = Field(
        default_factory=lambda: [DATA_FILE_READ, DOCUMENT_FLAGS, DOCUMENT_COMMANDS],
        description="regexes of commands whose output passes byte-exact only when a program may be "
        "reading it (a PATH shim writing into a pipe or file); the agent reading gets the crushed view")
    sniff_json: bool = Field(True, description="output that parses as JSON passes byte-exact")
    _regexes = field_validator("structured_flags", "program_reads")(_safe_regexes)
    binary: bool = Field(True, description="output with NUL bytes or mostly undecodable passes raw")


class ScoreParams(_Params):
    """Score: regexes that make a line critical (the answer) or noise."""
    critical: list[str] = Field(default_factory=list, description="extra critical-line regexes")
    noise: list[str] = Field(default_factory=list, description="noise-line regexes")
    not_critical: list[str] = Field(
        default_factory=list, description="regexes of lines never critical although they mention "
        "an error word (e.g. passing test rows named after the error they test)")
    critical_next: list[str] = Field(
        default_factory=list, description="regexes of header lines whose next non-blank line is "
        "critical too: a message printed under its header (Rust's `panicked at src/x.rs:4:9:`)")
    locations_on_failure: bool = Field(True, description="file:line lines are critical on failure")
    _regexes = field_validator("critical", "noise", "not_critical", "critical_next")(_safe_regexes)


class DropNoiseParams(_Params):
    """drop-noise: drop noise lines."""
    min_lines: int = Field(1, ge=1, description="decline unless at least this many lines go")


class FilterParams(_Params):
    """filter: the declarative filters (graphs/filters, user and trusted project files)."""
    enabled: bool = Field(True, description="apply the first filter whose `match` hits the command")


class DistillPytestParams(_Params):
    """distill-pytest: pytest runs."""
    fold_passing: bool = Field(True, description="verbose: the PASSED rows of each test file fold to "
                               "its first one and a counted line (every other row stays)")
    condense_over_budget: bool = Field(
        True, description="over budget, shorten failure blocks to header, > and E lines, locations")


class DistillUnittestParams(_Params):
    """distill-unittest: unittest runs (no settings)."""


class DistillGitStatusParams(_Params):
    """distill-git-status: git status, long and short forms."""
    drop_hints: bool = Field(True, description='drop the (use "git ...") hint lines')


class DistillGitPatchParams(_Params):
    """distill-git-patch: unified diffs, git show and git log."""
    index_share: float = Field(0.5, gt=0, le=1, description="keep every hunk header (bodies dropped "
                               "and counted) while the headers take at most this share of the budget")


class DistillGitBlameParams(_Params):
    """distill-git-blame: git blame."""
    definitions: bool = Field(True, description="rank lines that define something (def, class, fn...) first")


class DistillSearchParams(_Params):
    """distill-search: grep / rg / git grep results."""
    clip_chars: int = Field(600, ge=0, description="over budget, clip match lines longer than this "
                            "(counted in the footer; 0 = never)")
    path_lists: bool = Field(True, description="treat a list of paths (rg --files, grep -l) as a listing")


class DistillListingParams(_Params):
    """distill-listing: ls, find, fd, tree, du."""
    dirs_first: bool = Field(True, description="ls -l: directory rows rank before file rows")


class CodeOutlineParams(_Params):
    """code-outline: outline a large source file with tree-sitter."""
    min_lines: int = Field(200, ge=0, description="files with fewer lines (and under min_tokens) pass whole")
    min_tokens: int = Field(3000, ge=0, description="files estimated under this many tokens (and under min_lines) pass whole")
    language: str | None = Field(None, description="force a language (else by extension or #! line)")
    min_saving: float = Field(0.2, ge=0, lt=1, description="decline unless the outline saves this share of tokens")


class MarkdownOutlineParams(_Params):
    """markdown-outline: headings, salient lines, counted elisions."""
    min_lines: int = Field(150, ge=0, description="documents with fewer lines (and under min_tokens) pass whole")
    min_tokens: int = Field(2500, ge=0, description="documents under this many tokens (and under min_lines) pass whole")
    keep_share: float = Field(0.3, gt=0, le=1, description="share of the document's tokens filled with the best lines")
    min_saving: float = Field(0.2, ge=0, lt=1, description="decline unless the view saves this share of tokens")


class HtmlOutlineParams(_Params):
    """html-outline: headings, anchors, salient text rows, counted elisions."""
    min_lines: int = Field(150, ge=0, description="pages with fewer lines (and under min_tokens) pass whole")
    min_tokens: int = Field(2500, ge=0, description="pages under this many tokens (and under min_lines) pass whole")
    keep_share: float = Field(0.15, gt=0, le=1, description="share of the page's tokens filled with the best text rows")
    min_saving: float = Field(0.2, ge=0, lt=1, description="decline unless the view saves this share of tokens")


class ProseParams(_Params):
    """prose: extractive view of a long prose document."""
    min_lines: int = Field(150, ge=0, description="documents with fewer lines (and under min_tokens) pass whole")
    min_tokens: int = Field(2500, ge=0, description="documents under this many tokens (and under min_lines) pass whole")
    min_prose: float = Field(0.4, ge=0, le=1, description="decline unless this share of non-blank lines read as sentences")
    terms: bool = Field(True, description="keep definition-term lines (option lists of manual pages)")
    every_term: bool = Field(False, description="keep every definition-term line whatever the line "
                             "budget (manual pages, --help: each option line is the answer)")
    keep_share: float = Field(0.3, gt=0, le=1, description="share of the document's tokens filled with the best lines")
    min_saving: float = Field(0.2, ge=0, lt=1, description="decline unless the view saves this share of tokens")


class DistillCargoParams(_Params):
    """distill-cargo: cargo builds and tests."""
    snippets_over_budget: bool = Field(True, description="over budget, drop diagnostics' code snippets")


class DistillGoParams(_Params):
    """distill-go: go test/build/vet (no settings)."""


class DistillBuildParams(_Params):
    """distill-build: make/gcc/clang/cmake builds."""
    snippets_over_budget: bool = Field(True, description="over budget, drop diagnostics' code snippets")
    group: bool = Field(True, description="still over budget, say a warning that recurs at 4 or more "
                        "places of one function once, every other location on one counted line")


class DistillLogParams(_Params):
    """distill-log: text logs grouped by line template."""
    max_template_share: float = Field(0.6, gt=0, le=1, description="decline when distinct templates "
                                      "exceed this share of the log's entries (too few repeats)")
    tail: int = Field(3, ge=0, description="last entries always shown (how the log ends)")


class DistillJsonlParams(_Params):
    """distill-jsonl: JSON Lines logs and event streams."""
    head: int = Field(3, ge=0, description="first records always shown")
    tail: int = Field(3, ge=0, description="last records always shown")
    max_anomalies: int = Field(60, ge=0, description="anomalous records shown at most (rarest first)")


class DistillLintParams(_Params):
    """distill-lint: linters and type checkers (acts only over budget)."""
    group: bool = Field(True, description="over budget, say a file's repeated finding message once: "
                                          "the first row stays, the other locations go on one counted line")


class CollapseParams(_Params):
    """collapse: fold runs of near-identical lines."""
    min_run: int = Field(3, ge=2, description="fold runs of at least this many similar lines")
    exact_only: bool = Field(False, description="fold only exact repeats, not lines differing in numbers")
    keep_last: bool = Field(False, description="keep each run's last line too (logs: the span's end)")


class TrimParams(_Params):
    """trim: head and tail within the budget, every critical line kept."""
    head_share: float = Field(0.6, gt=0, lt=1, description="share of the line budget given to the head")
    max_lines: int | None = Field(None, ge=4, description="override the graph budget's max_lines")


class LedgerParams(_Params):
    """ledger: fold blocks already delivered to this reader scope."""
    floor: int = Field(30, ge=0, description="outputs with fewer lines are never folded")
    min_run: int = Field(8, ge=6, description="fold runs of at least this many already-shown lines")


class RouteParams(_Params):
    """route: choose compressed or raw (the engine's emission rule writes the footer)."""
    min_saving: float = Field(0.1, ge=0, lt=1,
                              description="emit raw unless the compressed form saves this share of tokens")


class PersistParams(_Params):
    """persist: archive the raw original."""
    enabled: bool = Field(True, description="store the original (without it, lossy output falls back to raw)")


class DistillNpmParams(_Params):
    """distill-npm: npm / pnpm / yarn install and run."""
    drop_passing: bool = Field(True, description="drop passing test rows of `npm test` / `npm run` scripts")


class DistillPipParams(_Params):
    """distill-pip: pip / uv install."""
    fold_warnings: int = Field(3, ge=2, description="fold this many or more warnings of one shape "
                               "(differing only in quoted names) to the first and a count")


class LosslessParams(_Params):
    """lossless: reversible transforms, applied only when verified to round-trip byte for byte."""
    json_forms: bool = Field(True, description="JSON input: table of uniform objects, else compact form")
    runs: bool = Field(True, description="fold runs of identical lines and of blank lines, with counts")
    min_run: int = Field(3, ge=2, description="fold runs of at least this many identical lines")
    min_blank_run: int = Field(3, ge=2, description="fold runs of at least this many empty lines")
    max_json_bytes: int = Field(8 << 20, ge=1024, description="larger JSON is left to the crusher")


class CrushJsonParams(_Params):
    """crush-json: JSON over budget → sampled, schema-annotated layout."""
    max_bytes: int = Field(16 << 20, ge=1024, description="decline on larger documents")
    max_ratio: float = Field(0.5, gt=0, le=1, description="gzip ratio above which input counts as "
                             "incompressible: only the gentle levels (no heavy sampling) run")


class CrushTableParams(_Params):
    """crush-table: CSV/TSV over budget → header, schema, anomalous rows, head and tail rows."""
    delimiter: str = Field("", max_length=1, description="field separator; empty: sniff , ; | or tab")
    max_ratio: float = Field(0.5, gt=0, le=1, description="gzip ratio above which rows are not sampled")
    max_anomalies: int = Field(60, ge=0, description="anomalous rows kept at most (count always stated)")
    tail_share: float = Field(0.25, ge=0, lt=1, description="share of sampled rows taken from the end")


class CrushTreeParams(_Params):
    """crush-yaml / crush-toml: over budget, long lists and tables sampled, lines byte-exact."""
    max_ratio: float = Field(0.5, gt=0, le=1, description="gzip ratio above which only gentle levels run")
    max_bytes: int = Field(8 << 20, ge=1024, description="decline on larger documents")


class DistillEnvParams(_Params):
    """distill-env: env / printenv listings."""
    noise_names: list[str] = Field(default_factory=lambda: ["LS_COLORS", "LSCOLORS", "GREP_COLORS", "EZA_COLORS"],
                                   description="variables whose long values are noise (not shown, counted)")
    noise_min_chars: int = Field(200, ge=0, description="hide a noise variable's value only when longer than this")


class MaskJsonParams(_Params):
    """mask-json: credential values in JSON (no settings: what is a credential is fixed)."""


class DistillHttpParams(_Params):
    """distill-http: curl / wget (no settings yet: the shapes it drops are fixed)."""


class DistillDockerParams(_Params):
    """distill-docker: docker build / pull (no settings yet: the shapes it drops are fixed)."""


class DistillKubectlParams(_Params):
    """distill-kubectl: kubectl get tables."""
    healthy_label: str = Field("healthy row{s} (Running/Completed, all containers ready, no restarts)",
                               description="how the summary line names the rows it dropped")
