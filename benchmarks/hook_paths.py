"""Which Claude Code hook path handles a typical agent command, per permission mode.

For ~40 commands agents run most, and each permission mode, the table says who shrinks the output:
``pre`` (the PreToolUse hook wraps the line in ``thresher run``), ``post`` (the PostToolUse hook
replaces the output after it ran as the user's rules judged it) or ``none`` (raw: a pipe, a
builtin, an interactive or trivial command). Settings: none at all (an empty HOME and project),
so Claude Code's own read-only list and the mode decide. ``post`` needs a successful run: a failed
command goes to PostToolUseFailure, which cannot replace output (see the README).

Then it replays the session transcripts in ``tests/fixtures/transcripts`` (real command outputs in
Claude Code's transcript format) through the hooks in each mode and reports the tokens the agent
would have read of its Bash results and content-mode Grep results (estimated with thresher's
estimator): raw, and with the hooks.

Last, a live session: :data:`LIVE` (16 read-only commands an agent runs to find its way around)
run for real in ``--repo`` (default: this repository), delivered as the hooks would per mode.

Usage: ``python benchmarks/hook_paths.py [--mode default ...] [--transcripts DIR] [--repo DIR]``.
"""

from __future__ import annotations

import argparse
import os
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("default", "acceptEdits", "auto", "plan", "dontAsk", "bypassPermissions")
COMMANDS = [
    "git status", "git diff", "git diff --stat", "git log --oneline -20", "git log -p -3",
    "git show HEAD", "git add -A", 'git commit -m "fix mean"', "git push origin main",
    "git branch -a", "ls", "ls -la", "ls -R src", "cat src/app.py", "head -n 50 README.md",
    "tail -n 100 app.log", "grep -rn TODO src", 'rg -n "def " src', 'find . -name "*.py"',
    "tree -L 2", "du -sh node_modules", "wc -l src/*.py", "pytest -q",
    "python -m pytest tests/test_app.py -x", "npm test", "npm install", "npm run build",
    "cargo build", "cargo test", "go test ./...", "make", "npx tsc --noEmit", "ruff check .",
    "mypy src", "pip install -e .", "docker ps", "kubectl get pods", "cd src && pytest -q",
    "pytest -q | tail -20", "git log | head -50", "echo done", "mkdir -p build",
    "sed -n 1,80p src/app.py", "THRESHER_RAW=1 git log",
]


def _payload(event: str, cwd: str, mode: str, command: str, stdout: str = "") -> dict:
    data = {"session_id": f"bench-{mode}", "transcript_path": os.path.join(cwd, "t.jsonl"),
            "cwd": cwd, "permission_mode": mode, "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"}, "tool_use_id": ""}
    if event == "PostToolUse":
        data["tool_response"] = {"stdout": stdout, "stderr": "", "interrupted": False,
                                 "isImage": False}
    return data


def path_of(command: str, mode: str, cwd: str, environ: dict) -> str:
    """``pre``, ``post`` or ``none`` for one command line in one mode."""
    from thresher.integrations.claude_hook import pre_tool_use
    from thresher.integrations.claude_post import post_command
    pre = pre_tool_use(_payload("PreToolUse", cwd, mode, command), environ)
    if pre and "updatedInput" in pre["hookSpecificOutput"]:
        return "pre"
    if pre:
        return pre["hookSpecificOutput"].get("permissionDecision", "none")
    return "post" if post_command(command) else "none"


def table(modes: list[str], cwd: str, environ: dict) -> list[str]:
    """The rendered table (markdown)."""
    lines = ["| command | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    counts = {m: {"pre": 0, "post": 0, "none": 0} for m in modes}
    for command in COMMANDS:
        row = []
        for mode in modes:
            got = path_of(command, mode, cwd, environ)
            counts[mode][got] = counts[mode].get(got, 0) + 1
            row.append(got)
        lines.append(f"| `{command}` | " + " | ".join(row) + " |")
    lines.append("| **total pre / post / none** | " + " | ".join(
        f"{c['pre']} / {c['post']} / {c['none']}" for c in counts.values()) + " |")
    return lines


def replay_through_hooks(folder: str, mode: str, cwd: str, environ: dict) -> dict:
    """Tokens of every Bash result in the transcripts: raw, and as the hooks would deliver them."""
    from thresher.bench.arms import cached_plans, thresher_view
    from thresher.bench.replay import bash_case, entries, tool_calls, transcript_files
    from thresher.bench.score import counter
    from thresher.integrations.claude_post import post_tool_use
    _, count = counter("estimate")
    out = {"calls": 0, "raw": 0, "hooks": 0, "pre": 0, "post": 0}
    for n, path in enumerate(transcript_files([folder])):
        calls, _ = tool_calls(entries(path)[0])
        for i, call in enumerate(c for c in calls if c["tool"] == "Grep"):
            got = _grep_through_hooks(call, mode, cwd, f"{n}_{i}")
            if got is not None:
                out["calls"] += 1
                out["raw"] += count(got[0])
                out["hooks"] += count(got[1])
                out["post"] += got[0] != got[1]
        for i, call in enumerate(c for c in calls if c["tool"] == "Bash"):
            case = bash_case(call)
            raw = case["stdout"] + case["stderr"]
            seen, how = raw, path_of(case["command"], mode, cwd, environ)
            if how == "pre":  # what `thresher run` prints, a failing command's errors kept
                seen = thresher_view(case, "default", cached_plans()).decode("utf-8", "replace")
            elif how == "post" and case["exit_code"] == 0:
                data = _payload("PostToolUse", cwd, mode, case["command"], case["stdout"])
                data["tool_use_id"], data["session_id"] = f"toolu_{n}_{i}", f"bench-{mode}-{n}"
                answer = post_tool_use(data, environ)
                if answer:
                    seen = answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"] + \
                        case["stderr"]
            out["calls"] += 1
            out["raw"] += count(raw)
            out["hooks"] += count(seen)
            out[how] = out.get(how, 0) + (seen != raw)
    return out


# A session's worth of read-only commands, run for real in a repository (default: this one).
LIVE = ["git status", "git log", "git log --stat -30", "git diff HEAD~8 --stat", "git diff HEAD~3",
        "git show HEAD~1", "ls -la", "ls -R stages", "cat dataflow/api.py", "cat README.md",
        "head -n 200 bench/replay.py", 'rg -n "def " stages', 'grep -rn "import" cli',
        'find . -name "*.py" -not -path "./.venv/*"', "du -ah graphs", "ls -la tests/fixtures"]


def live_session(repo: str, mode: str, cwd: str, environ: dict) -> dict:
    """Run :data:`LIVE` in ``repo`` and deliver each output as the hooks would in ``mode``."""
    import subprocess
    from thresher.bench.arms import cached_plans, thresher_view
    from thresher.bench.score import counter
    from thresher.integrations.claude_post import post_tool_use
    _, count = counter("estimate")
    out = {"calls": 0, "raw": 0, "hooks": 0, "pre": 0, "post": 0}
    for i, command in enumerate(LIVE):
        proc = subprocess.run(["/bin/sh", "-c", command], cwd=repo, capture_output=True,
                              text=True, errors="replace", timeout=120)
        case = {"command": command, "exit_code": proc.returncode, "stdout": proc.stdout,
                "stderr": proc.stderr}
        raw, how = proc.stdout + proc.stderr, path_of(command, mode, cwd, environ)
        seen = raw
        if how == "pre":
            seen = thresher_view(case, "default", cached_plans()).decode("utf-8", "replace")
        elif how == "post" and proc.returncode == 0:
            data = _payload("PostToolUse", repo, mode, command, proc.stdout)
            data["tool_use_id"], data["session_id"] = f"toolu_live_{mode}_{i}", f"live-{mode}"
            answer = post_tool_use(data, environ)
            if answer:
                seen = answer["hookSpecificOutput"]["updatedToolOutput"]["stdout"] + proc.stderr
        out["calls"] += 1
        out["raw"] += count(raw)
        out["hooks"] += count(seen)
        out[how] = out.get(how, 0) + (seen != raw)
    return out


def _report(title: str, rows: dict) -> None:
    print(title)
    for mode, r in rows.items():
        saved = r["raw"] - r["hooks"]
        pct = 100.0 * saved / r["raw"] if r["raw"] else 0.0
        print(f"  {mode:<18} {r['calls']} calls: {r['raw']:,} raw -> {r['hooks']:,} "
              f"({saved:,} saved, {pct:.1f}%); shrunk by pre {r['pre']}, by post {r['post']}")


def _grep_through_hooks(call: dict, mode: str, cwd: str, tag: str) -> tuple[str, str] | None:
    """``(raw content, what the agent reads)`` of a content-mode Grep call, else None."""
    from thresher.integrations.claude_post import grep_post
    res = call.get("structured")
    if not isinstance(res, dict) or res.get("mode") != "content":
        return None
    data = {"session_id": f"bench-{mode}-grep-{tag}", "cwd": cwd, "permission_mode": mode,
            "hook_event_name": "PostToolUse", "tool_name": "Grep", "tool_input": call["input"],
            "tool_response": res, "tool_use_id": f"toolu_grep_{mode}_{tag}"}
    answer = grep_post(data)
    raw = res.get("content") or ""
    return raw, answer["hookSpecificOutput"]["updatedToolOutput"]["content"] if answer else raw


def main() -> None:
    """Print the path table and the replayed session's tokens."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", action="append", choices=MODES, help="modes (default: all)")
    ap.add_argument("--transcripts", default=os.path.join(HERE, "..", "tests", "fixtures",
                                                          "transcripts"))
    ap.add_argument("--repo", default=os.path.join(HERE, ".."),
                    help="repository for the live session (default: this one; '' to skip)")
    args = ap.parse_args()
    modes = args.mode or list(MODES)
    with tempfile.TemporaryDirectory() as tmp:
        home, proj = os.path.join(tmp, "home"), os.path.join(tmp, "proj")
        os.makedirs(os.path.join(home, ".claude"))
        os.makedirs(os.path.join(proj, ".git"))
        os.environ.setdefault("THRESHER_HOME", os.path.join(tmp, "thresher"))
        environ = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_")}
        environ["HOME"] = home
        os.environ["HOME"] = home
        print("\n".join(table(modes, proj, environ)))
        _report(f"\nsession replay ({os.path.relpath(args.transcripts)}), Bash and Grep "
                "results, estimated tokens:",
                {m: replay_through_hooks(args.transcripts, m, proj, environ) for m in modes})
        if args.repo:
            _report(f"\nlive session: {len(LIVE)} read-only commands run in {args.repo}, "
                    "estimated tokens:",
                    {m: live_session(args.repo, m, proj, environ) for m in modes})


if __name__ == "__main__":
    main()
