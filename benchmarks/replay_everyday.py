"""A session of everyday commands replayed through the Claude Code hooks, bounces counted.

Runs real commands (git status/log/diff, ls, find, grep, cat, pip list, pytest) in a local clone
of this repository with one edit made, and for each:
1. sends the PreToolUse event to ``thresher hook claude``; when it answers with an updatedInput
   (a ``thresher run`` wrapping) that command runs, else the original does and its output goes
   to the PostToolUse event, whose updatedToolOutput (if any) is what the agent reads;
2. checks what the agent read against the facts it ran the command for (``FACTS``: the rows of
   an enumeration, the changed lines, the summary); a view missing any fact is a *bounce*: the
   agent runs the ``thresher expand`` its footer names, and those tokens count against the saving.
It also writes the session as a Claude Code transcript (raw outputs) for ``thresher replay``.
Everything runs under a fresh THRESHER_HOME; the report is ``thresher gain`` (signed, bounces
counted) plus this script's own tally. Run: ``python benchmarks/replay_everyday.py [OUT.jsonl]``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
THRESHER = os.path.join(BIN, "thresher")


def _rows(out: str) -> list[str]:
    return [s for s in out.splitlines() if s.strip()]



def _headings(text: str) -> list[str]:
    """A markdown file's ATX headings: `#` lines outside fenced code (a `# comment` in a shell
    block is code, not a heading)."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            out.append(line)
    return out

SESSION = [  # (command, facts the agent needs from the raw output)
    ("git status", lambda o: [s for s in o.splitlines() if s.startswith("\t")]),
    ("git log -n 40", lambda o: [s for s in o.splitlines() if s.startswith("commit ")]
     + [s for s in o.splitlines() if s.startswith("    ") and s.strip()][:0]),
    ("git log --oneline -n 200", _rows),
    ("git diff", lambda o: [s for s in o.splitlines() if s.startswith(("+", "-"))]),
    ("ls -la", _rows),
    ("ls -la stages", _rows),
    ("find stages tests -name '*.py'", _rows),
    ("grep -rn 'def run' stages", _rows),
    ("cat stages/budget.py", lambda o: [s for s in o.splitlines() if re.match(r"^(?:def|class) ", s)]),
    ("cat README.md", lambda o: _headings(o)),
    (f"{BIN}/pip list", _rows),
    (f"{BIN}/python -m pytest -q -p no:cacheprovider tests/test_distill_listing.py",
     lambda o: [s for s in o.splitlines() if re.search(r"\d+ passed|failed|error", s)]),
]


def hook(event: dict, env: dict) -> dict:
    p = subprocess.run([THRESHER, "hook", "claude"], input=json.dumps(event).encode(),
                       capture_output=True, env=env)
    return json.loads(p.stdout) if p.stdout.strip() else {}


def sh(command: str, cwd: str, env: dict) -> tuple[int, str, str]:
    p = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def count(text: str) -> int:
    from thresher.bench.score import counter
    return counter("auto")[1](text)


def main(out_path: str) -> None:
    """Run the session, print the tally and write the transcript."""
    tmp = tempfile.mkdtemp(prefix="thresher-replay-")
    repo = os.path.join(tmp, "repo")
    subprocess.run(["git", "clone", "-q", ROOT, repo], check=True)
    with open(os.path.join(repo, "stages", "budget.py"), "a") as fh:
        fh.write("\n\ndef spare(n: int) -> int:\n    \"\"\"An edit for git diff.\"\"\"\n    return n\n")
    env = {**os.environ, "THRESHER_HOME": os.path.join(tmp, "home"),
           "THRESHER_CACHE_HOME": os.path.join(tmp, "cache"), "PATH": BIN + ":" + os.environ["PATH"]}
    entries, tally = [], {"in": 0, "read": 0, "bounce": 0, "bounces": 0}
    for k, (command, facts_of) in enumerate(SESSION):
        tid = f"toolu_{k:03d}"
        base = {"session_id": "replay-everyday", "cwd": repo, "tool_name": "Bash",
                "tool_use_id": tid, "tool_input": {"command": command}}
        pre = hook({**base, "hook_event_name": "PreToolUse"}, env)
        wrapped = pre.get("hookSpecificOutput", {}).get("updatedInput", {}).get("command")
        code, raw_out, raw_err = sh(command, repo, env)
        if wrapped:
            _, seen, seen_err = sh(wrapped, repo, env)
        else:
            post = hook({**base, "hook_event_name": "PostToolUse", "tool_response": {
                "stdout": raw_out, "stderr": raw_err, "interrupted": False, "isImage": False}}, env)
            seen = post.get("hookSpecificOutput", {}).get("updatedToolOutput", {}).get("stdout", raw_out)
            seen_err = raw_err
        t_in, t_read = count(raw_out + raw_err), count(seen + seen_err)
        missing = [f for f in facts_of(raw_out) if f not in seen]
        bounce = 0
        # the footer is the last line naming a handle (a README may quote `thresher expand` itself)
        m = ([None] + list(re.finditer(r"\[thresher: [^\n]*thresher expand ([0-9a-f]{12})", seen)))[-1]
        if missing and m:
            rc, full, err = sh(f"{THRESHER} expand {m[1]}", repo, env)
            bounce = count(full) if rc == 0 and full else t_in   # a failed expand: read it again
            if rc != 0 or not full:
                print(f"  expand {m[1]} failed (exit {rc}): {err.strip()[:200]}")
        elif missing:   # no handle in the view: the agent runs the command again, in full
            bounce = t_in
        tally["in"] += t_in
        tally["read"] += t_read
        tally["bounce"] += bounce
        tally["bounces"] += bool(bounce)
        print(f"{command[:60]:60} {'wrapped' if wrapped else 'post':7} {t_in:6} -> {t_read:6}"
              f"  missing {len(missing):3}  bounce {bounce}")
        entries.append({"type": "assistant", "message": {"content": [
            {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}]}})
        entries.append({"type": "user", "toolUseResult": {"stdout": raw_out, "stderr": raw_err},
                        "message": {"content": [{"type": "tool_result", "tool_use_id": tid,
                                                 "content": raw_out + raw_err, "is_error": code != 0}]}})
    net = tally["in"] - tally["read"] - tally["bounce"]
    print(f"session: {tally['in']} tokens raw, {tally['read']} read, {tally['bounces']} bounce(s) "
          f"re-reading {tally['bounce']}; net saved {net} ({100 * net / max(tally['in'], 1):.1f}%)")
    with open(out_path, "w") as fh:
        fh.writelines(json.dumps(e) + "\n" for e in entries)
    print(f"transcript: {out_path} (thresher replay {out_path})")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.gettempdir(), "everyday.jsonl"))
