"""``thresher bench`` as a library: every case of the corpus folders through every arm, scored.

``run_bench`` returns plain, JSON-ready data: per arm the totals (tokens in/out, signed savings,
median saving per case, facts kept, cases missing a fact, outputs that grew, verbatim cases not
byte-exact, time), a per-class table and the failing cases with their missing facts; and per case
the score under each arm. :mod:`thresher.bench.render` turns it into text or HTML.
"""

from __future__ import annotations

import statistics
import sys
import time

from .arms import apply as apply_arm, arm_name, parse_arm
from .score import as_text, counter, payload, score, tokenizer_note

DEFAULT_ARMS = ("raw", "headtail", "thresher")
CASE_FIELDS = ("tokens_in", "tokens_out", "saved", "missing", "verbatim_ok", "grew", "ms", "ok",
               "error")


def arm_specs(arm_args: "list[str] | None", roles: "list[str] | None") -> list[tuple[str, str]]:
    """The ``(kind, arg)`` arms to run: ``--arm`` values (default raw, headtail, thresher), each
    plain ``thresher`` expanded to one arm per ``--role``; duplicates dropped, order kept."""
    specs: list[tuple[str, str]] = []
    for spec in arm_args or DEFAULT_ARMS:
        kind, arg = parse_arm(spec)
        if kind == "thresher" and spec.strip() == "thresher" and roles:
            specs += [("thresher", r) for r in roles]
        else:
            specs.append((kind, arg))
    return list(dict.fromkeys(specs))


def case_job(job: tuple) -> list[dict]:
    """Score one case under every arm (a pure, picklable unit of work for the pool)."""
    case, specs, tokenizer = job
    _, count = counter(tokenizer)
    raw = payload(case)
    t_in = count(as_text(raw))
    rows = []
    for kind, arg in specs:
        t0 = time.perf_counter()
        try:
            out, err = apply_arm(kind, arg, case)
        except Exception as exc:  # noqa: BLE001 - an arm that crashes scores as raw, and says so
            out, err = raw, f"{type(exc).__name__}: {str(exc)[:200]}"
        ms = (time.perf_counter() - t0) * 1000
        row = score(case, out, count, raw=raw, ms=ms, tokens_in=t_in)
        row["arm"], row["error"] = arm_name(kind, arg), err
        rows.append(row)
    return rows


class Progress:
    """A one-line progress bar on stderr (drawn only when ``enabled``)."""

    def __init__(self, total: int, enabled: bool, stream=None, width: int = 30) -> None:
        self.total, self.enabled, self.width, self.done = max(total, 1), enabled, width, 0
        self.stream = stream or sys.stderr
        self.t0, self.last = time.monotonic(), 0.0

    def step(self, label: str = "") -> None:
        """One more item done; redraw at most ten times a second (and at the end)."""
        self.done += 1
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and self.done < self.total):
            return
        self.last = now
        filled = self.width * self.done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total} {now - self.t0:5.1f}s {label[:40]:<40}")
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def _new_row(key: str) -> dict:
    return {"key": key, "cases": 0, "tokens_in": 0, "tokens_out": 0, "saved": 0, "facts": 0,
            "facts_kept": 0, "cases_missing": 0, "grew": 0, "verbatim_cases": 0,
            "verbatim_failed": 0, "errors": 0, "passed": 0, "ms": 0.0, "_pcts": [], "_ms": []}


def _add(row: dict, r: dict) -> None:
    row["cases"] += 1
    for k in ("tokens_in", "tokens_out", "saved", "facts"):
        row[k] += r[k]
    row["facts_kept"] += r["facts"] - len(r["missing"])
    row["cases_missing"] += bool(r["missing"])
    row["grew"] += r["grew"]
    row["verbatim_cases"] += r["verbatim"]
    row["verbatim_failed"] += r["verbatim_ok"] is False
    row["errors"] += bool(r.get("error"))
    row["passed"] += r["ok"]
    row["ms"] += r["ms"]
    row["_ms"].append(r["ms"])
    if r["tokens_in"]:
        row["_pcts"].append(100.0 * r["saved"] / r["tokens_in"])


def _finish(row: dict) -> dict:
    pcts, mss = row.pop("_pcts"), row.pop("_ms")
    row["pct"] = round(100.0 * row["saved"] / row["tokens_in"], 1) if row["tokens_in"] else 0.0
    row["median_pct"] = round(statistics.median(pcts), 1) if pcts else 0.0
    row["facts_pct"] = round(100.0 * row["facts_kept"] / row["facts"], 1) if row["facts"] else 100.0
    row["ms"] = round(row["ms"], 1)
    row["median_ms"] = round(statistics.median(mss), 2) if mss else 0.0
    return row


def summarize(rows: list[dict], names: list[str]) -> list[dict]:
    """Per arm (in ``names`` order): totals, per-class table, failing cases."""
    out = []
    for name in names:
        mine = [r for r in rows if r["arm"] == name]
        total = _new_row("TOTAL")
        classes: dict[str, dict] = {}
        for r in mine:
            _add(total, r)
            _add(classes.setdefault(r["class"], _new_row(r["class"])), r)
        failing = [{"id": r["id"], "class": r["class"], "missing": r["missing"], "grew": r["grew"],
                    "verbatim_failed": r["verbatim_ok"] is False, "saved": r["saved"],
                    "error": r.get("error", "")}
                   for r in mine if not r["ok"] or r.get("error")]
        out.append({"arm": name, "totals": _finish(total),
                    "by_class": [_finish(classes[k]) for k in sorted(classes)],
                    "failing": failing})
    return out


def run_bench(dirs: list[str], *, arms: "list[str] | None" = None, roles: "list[str] | None" = None,
              tokenizer: str = "auto", progress: bool = False, workers: int = 1,
              pclass: str | None = None, ids: "list[str] | None" = None,
              limit: int | None = None, command: str = "") -> dict:
    """Run the benchmark and return the report (see the module docstring)."""
    from thresher.property.corpus import iter_cases
    specs = arm_specs(arms, roles)
    name, _ = counter(tokenizer)  # fail early (before any work) when exact counts are demanded
    cases = [c for c in iter_cases(dirs)
             if (not pclass or c.get("class") == pclass) and (not ids or c.get("id") in ids)]
    if limit is not None:
        cases = cases[:limit]
    from .fleet import fmap
    bar = Progress(len(cases), progress)
    t0 = time.perf_counter()
    rows: list[dict] = []
    per_case = []  # one entry per case file (ids may repeat across folders)
    for case, scored in zip(cases, fmap(case_job, [(c, specs, tokenizer) for c in cases],
                                        workers=workers)):
        rows += scored
        per_case.append({"id": case.get("id", "?"), "class": case.get("class") or "?",
                         "arms": {r["arm"]: {k: r[k] for k in CASE_FIELDS} for r in scored}})
        bar.step(case.get("id", ""))
    names = [arm_name(k, a) for k, a in specs]
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": command,
            "corpus": list(dirs), "tokenizer": name, "tokenizer_note": tokenizer_note(name, tokenizer),
            "case_count": len(cases), "seconds": round(time.perf_counter() - t0, 1),
            "arms": summarize(rows, names), "cases": per_case}
