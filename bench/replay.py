"""``thresher replay`` as a library: what thresher would have saved on recorded Claude Code sessions.

A transcript is JSONL, one entry per line (``type`` user/assistant/...). An assistant entry's
``message.content`` holds ``tool_use`` blocks ``{id, name, input}``; a later user entry holds the
matching ``tool_result`` block ``{tool_use_id, content, is_error}`` and, when it carries one result,
the structured ``toolUseResult`` (Bash: ``{stdout, stderr, ...}``; Read: ``{file: {content, ...}}``).
A failing Bash call's content starts ``Exit code N``.

Measured, without changing anything (no archive, ledger or file is written):
- Bash: stdout and stderr (or the combined content) through what ``thresher run`` would emit;
- Read: the file text shown (without the tool's line-number gutter, so the baseline is, if
  anything, low) through the graph of the file's class, as ``thresher read`` does;
- Grep: the content through the search (or listing) graph, as for ``rg``.
Other tools' results are counted (tokens) but not measured: thresher does not see them.

:func:`replay_file` is a pure function of one file; :func:`replay` maps it over files with
:func:`thresher.bench.fleet.fmap` (process pool, Dask or Ray) and merges the results.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import statistics
import time

from .score import as_text, counter, to_bytes, tokenizer_note
from .tables import text_table

MEASURED = ("Bash", "Read", "Grep")
_EXIT = re.compile(r"\A(?:Error: )?Exit code (\d+)\n?")
_GUTTER = re.compile(r"^ *\d+(?:→|\t)", re.M)


def entries(path: str) -> tuple[list[dict], int]:
    """The JSON entries of a transcript and the number of lines that were not JSON objects."""
    good, bad = [], 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(entry, dict):
                good.append(entry)
            else:
                bad += 1
    return good, bad


def _blocks(entry: dict) -> list[dict]:
    msg = entry.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _text(content) -> str:
    """A tool_result's content as text (a string, or the text of its text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") == "text")
    return ""


def tool_calls(items: list[dict]) -> tuple[list[dict], int]:
    """Pair every ``tool_use`` with its ``tool_result``: ``(calls, uses left without a result)``.

    A call is ``{id, tool, input, content, is_error, structured}`` (``structured`` is the entry's
    ``toolUseResult`` when the entry carries exactly this one result, else None).
    """
    uses: dict[object, dict] = {}  # by id as the transcript gives it (a string in practice)
    calls = []
    for entry in items:
        blocks = _blocks(entry)
        for b in blocks:
            if b.get("type") == "tool_use" and b.get("id"):
                uses[b["id"]] = b
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for b in results:
            use = uses.pop(b.get("tool_use_id"), None)
            if use is None:
                continue
            structured = entry.get("toolUseResult") if len(results) == 1 else None
            calls.append({"id": use["id"], "tool": use.get("name") or "?",
                          "input": use.get("input") if isinstance(use.get("input"), dict) else {},
                          "content": _text(b.get("content")), "is_error": bool(b.get("is_error")),
                          "structured": structured})
    return calls, len(uses)


def bash_case(call: dict) -> dict:
    """The corpus-schema case of a Bash call: command, exit code, stdout, stderr."""
    command = str(call["input"].get("command") or "")
    res = call["structured"]
    if isinstance(res, dict) and isinstance(res.get("stdout"), str) and not call["is_error"]:
        return {"command": command, "exit_code": 0, "stdout": res["stdout"],
                "stderr": res.get("stderr") or ""}
    text = call["content"]
    m = _EXIT.match(text)
    code = int(m.group(1)) if m else (1 if call["is_error"] else 0)
    return {"command": command, "exit_code": code, "stdout": text[m.end():] if m else text,
            "stderr": ""}


def read_text(call: dict) -> str:
    """The file text a Read call showed (the structured content, else the content de-numbered)."""
    res = call["structured"]
    if isinstance(res, dict) and isinstance(res.get("file"), dict) \
            and isinstance(res["file"].get("content"), str):
        return res["file"]["content"]
    return _GUTTER.sub("", call["content"])


def grep_command(tool_input: dict) -> str:
    """The ripgrep command line a Grep call stands for (it chooses the graph)."""
    mode = tool_input.get("output_mode") or "files_with_matches"
    argv = ["rg", {"content": "-n", "count": "-c"}.get(mode, "-l")]
    if tool_input.get("glob"):
        argv += ["--glob", str(tool_input["glob"])]
    argv += ["-e", str(tool_input.get("pattern") or ""), str(tool_input.get("path") or ".")]
    return shlex.join(argv)


def view(call: dict, role: str = "default") -> tuple[str, str, bytes, bytes]:
    """``(group key, class, raw bytes, what thresher would emit)`` for one measured call."""
    from thresher.dataflow.api import compress
    from thresher.dataflow.contract import Archive
    from thresher.dataflow.plan import PASSTHROUGH_CLASSES
    from thresher.stores.savings import tool_of
    from .arms import cached_plans, thresher_view
    from .score import payload
    tool, plans = call["tool"], cached_plans()
    if tool == "Bash":
        case = bash_case(call)
        return (tool_of(case["command"]), plans.classify(case["command"]) or "?", payload(case),
                thresher_view(case, role, plans))
    if tool == "Read":
        path = str(call["input"].get("file_path") or "")
        raw = to_bytes(read_text(call))
        pclass = plans.classify(f"cat {shlex.quote(os.path.basename(path) or 'file')}")
        ext = os.path.splitext(path)[1] or os.path.basename(path)
        if pclass in PASSTHROUGH_CLASSES or not raw:
            return f"Read *{ext}", pclass or "?", raw, raw
        out = compress(raw, command=shlex.join(["thresher", "read", path]), exit_code=0,
                       role=role, pclass=pclass, plans=plans, archive=Archive()).output
        return f"Read *{ext}", pclass, raw, out
    command = grep_command(call["input"])
    raw = to_bytes(call["content"])
    out = compress(raw, command=command, exit_code=0, role=role, plans=plans,
                   archive=Archive()).output
    mode = call["input"].get("output_mode") or "files_with_matches"
    return f"Grep {mode}", plans.classify(command) or "?", raw, out


def replay_file(job: tuple) -> dict:
    """Everything measured in one transcript (a pure function of the file: picklable, no writes).

    ``job`` is ``(path, role, tokenizer)``.
    """
    path, role, tokenizer = job
    _, count = counter(tokenizer)
    result = {"file": path, "events": [], "other": {}, "bad_lines": 0, "unanswered": 0, "error": ""}
    try:
        items, result["bad_lines"] = entries(path)
    except OSError as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
        return result
    calls, result["unanswered"] = tool_calls(items)
    for call in calls:
        if call["tool"] not in MEASURED:
            row = result["other"].setdefault(call["tool"], [0, 0])
            row[0] += 1
            row[1] += count(call["content"])
            continue
        t0 = time.perf_counter()
        key, pclass, raw, out = view(call, role)
        t_in, t_out = count(as_text(raw)), count(as_text(out))
        result["events"].append({"tool": call["tool"], "key": key, "class": pclass,
                                 "project": project_of(path),
                                 "tokens_in": t_in, "tokens_out": t_out, "saved": t_in - t_out,
                                 "ms": round((time.perf_counter() - t0) * 1000, 2)})
    return result


def _group(events: list[dict], field: str) -> list[dict]:
    rows: dict[str, dict] = {}
    for e in events:
        r = rows.setdefault(e[field], {"key": e[field], "events": 0, "tokens_in": 0,
                                       "tokens_out": 0, "saved": 0, "grew": 0, "_pcts": []})
        r["events"] += 1
        r["tokens_in"] += e["tokens_in"]
        r["tokens_out"] += e["tokens_out"]
        r["saved"] += e["saved"]
        r["grew"] += e["saved"] < 0
        if e["tokens_in"]:
            r["_pcts"].append(100.0 * e["saved"] / e["tokens_in"])
    out = []
    for r in rows.values():
        pcts = r.pop("_pcts")
        r["pct"] = round(100.0 * r["saved"] / r["tokens_in"], 1) if r["tokens_in"] else 0.0
        r["median_pct"] = round(statistics.median(pcts), 1) if pcts else 0.0
        out.append(r)
    return sorted(out, key=lambda r: (-r["saved"], r["key"]))


def merge(results: list[dict], tokenizer_name: str, role: str, asked: str = "auto") -> dict:
    """The replay report over all transcripts: totals, per tool, per command, per class, per file."""
    events = [e for r in results for e in r["events"]]
    for e in events:
        e["all"] = "all"
    other: dict[str, list[int]] = {}
    for r in results:
        for tool, (n, t) in r["other"].items():
            row = other.setdefault(tool, [0, 0])
            row[0] += n
            row[1] += t
    totals = _group(events, "all")
    for e in events:
        del e["all"]
    per_file = [{"file": r["file"], "calls": len(r["events"]),
                 "tokens_in": sum(e["tokens_in"] for e in r["events"]),
                 "tokens_out": sum(e["tokens_out"] for e in r["events"]),
                 "bad_lines": r["bad_lines"], "unanswered": r["unanswered"], "error": r["error"]}
                for r in results]
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "role": role,
            "tokenizer": tokenizer_name, "tokenizer_note": tokenizer_note(tokenizer_name, asked),
            "transcripts": len(results),
            "totals": totals[0] if totals else {"key": "all", "events": 0, "tokens_in": 0,
                                                "tokens_out": 0, "saved": 0, "grew": 0,
                                                "pct": 0.0, "median_pct": 0.0},
            "by_tool": _group(events, "tool"), "by_command": _group(events, "key"),
            "by_class": _group(events, "class"), "by_project": _group(events, "project"),
            "other_tools": [{"key": k, "results": n, "tokens": t}
                            for k, (n, t) in sorted(other.items(), key=lambda kv: -kv[1][1])],
            "files": per_file}


def projects_root(environ: dict | None = None) -> str:
    """Where Claude Code keeps transcripts: ``$CLAUDE_CONFIG_DIR/projects``, else
    ``~/.claude/projects`` (one folder per project, named after its path)."""
    env = os.environ if environ is None else environ
    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or "~", ".claude")
    return os.path.join(os.path.expanduser(base), "projects")


def project_of(path: str) -> str:
    """The project a transcript belongs to: the folder under ``projects/`` (else its folder)."""
    parts = os.path.normpath(path).split(os.sep)
    if "projects" in parts[:-1]:
        at = len(parts) - 1 - parts[::-1].index("projects")
        if at + 1 < len(parts) - 1:
            return parts[at + 1]
    return os.path.basename(os.path.dirname(os.path.abspath(path))) or "."


def transcript_files(paths: list[str]) -> list[str]:
    """The ``.jsonl`` files named, or found under the folders named, in order."""
    found = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(".jsonl")]
        else:
            found.append(p)
    return found


def replay(paths: list[str], *, role: str = "default", tokenizer: str = "auto",
           engine: str = "local", workers: int = 1, address: str | None = None,
           progress=None) -> dict:
    """Replay every transcript under ``paths`` and return the merged report."""
    from .fleet import fmap
    name, _ = counter(tokenizer)
    files = transcript_files(paths)
    results = []
    for r in fmap(replay_file, [(f, role, tokenizer) for f in files], engine=engine,
                  workers=workers, address=address):
        results.append(r)
        if progress is not None:
            progress.step(os.path.basename(r["file"]))
    return merge(results, name, role, tokenizer)


COLS = [("", "key"), ("calls", "events"), ("tokens in", "tokens_in"), ("tokens out", "tokens_out"),
        ("saved", "saved"), ("saved %", "pct"), ("median %/call", "median_pct"), ("grew", "grew")]


def render_text(report: dict, top: int = 25) -> str:
    """The terminal report."""
    t = report["totals"]
    bad = sum(f["bad_lines"] for f in report["files"])
    errors = [f for f in report["files"] if f["error"]]
    lines = [f"thresher replay: {report['transcripts']} transcript(s), {t['events']:,} tool results "
             f"measured (Bash, Read, Grep), role {report['role']}; tokens: {report['tokenizer_note']}",
             f"  would have saved {t['saved']:,} of {t['tokens_in']:,} tokens ({t['pct']}%; median "
             f"{t['median_pct']}% per call); {t['grew']} output(s) would have grown. Nothing was "
             "changed."]
    if bad or errors:
        lines.append(f"  skipped: {bad} line(s) that were not JSON, {len(errors)} unreadable file(s)"
                     + (f" (first: {errors[0]['file']}: {errors[0]['error']})" if errors else ""))
    lines += text_table("per tool", report["by_tool"], COLS)
    lines += text_table(f"per command (top {top} by tokens saved)", report["by_command"][:top], COLS)
    lines += text_table("per class", report["by_class"], COLS)
    if len(report.get("by_project", [])) > 1 or report.get("found_under"):
        lines += text_table("per project", report["by_project"], COLS)
    if report["other_tools"]:
        lines += text_table("other tool results (not seen by thresher)", report["other_tools"],
                            [("tool", "key"), ("results", "results"), ("tokens", "tokens")])
    return "\n".join(lines) + "\n"
