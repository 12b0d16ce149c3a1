"""thresher vs headroom-ai 0.42 on the same 10 MB tool outputs, whole process, side by side.

headroom-ai has no command that compresses one tool output; its one-function Python API is
``headroom.compress(messages, model=...)``. The headroom arm is therefore a fresh interpreter of a
separate venv (never the project's) that reads the file, wraps it as the agent's conversation
(``user`` asks, ``assistant`` calls the Bash tool with the command, ``tool`` returns the output),
calls ``compress(messages, protect_recent=0)`` (its default keeps the last 4 messages as they are,
and the tool output is the last) and writes the compressed tool content to stdout. The thresher arm is
``python -m thresher pipe --cmd CMD [--exit-code N]``. Both run from the same small launcher
(``bench_proc.measure``): wall and CPU seconds of the child, peak RSS (``wait4``); arms alternate
per round and the medians are reported with the ratio headroom / thresher.

Offline: the headroom arm runs with ``HEADROOM_OFFLINE=1`` and ``HEADROOM_TELEMETRY=off`` (no beacon,
no update check, no model download) and HOME in a temporary folder. What that costs headroom (e.g.
its tokenizer file or ML model not being available here) is printed from the warnings it logs.
Targets: thresher >= 3x faster (wall) and below headroom's peak RSS on every shape.

Setup (once): ``python3 -m venv /tmp/headroom-venv && /tmp/headroom-venv/bin/pip install
'headroom-ai==0.42.*'``. Usage: ``python benchmarks/vs_headroom.py [--mb 10] [--shapes ...]
[--runs 1] [--headroom-python /tmp/headroom-venv/bin/python] [--check]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_inputs as inputs
from bench_proc import bench_env, load_note, measure

HEADROOM_ONE = r"""
import json, logging, sys
path, command, side = sys.argv[1], sys.argv[2], sys.argv[3]
seen = []
class Keep(logging.Handler):
    def emit(self, record):
        msg = record.getMessage()[:240]
        if msg not in seen:
            seen.append(msg)
logging.getLogger().addHandler(Keep(logging.WARNING))
import headroom
from headroom import compress
with open(path, encoding="utf-8", errors="surrogateescape") as fh:
    data = fh.read()
call = {"id": "call_1", "type": "function",
        "function": {"name": "Bash", "arguments": json.dumps({"command": command})}}
messages = [{"role": "user", "content": "Run `%s` and tell me what you find." % command},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": data}]
res = compress(messages, protect_recent=0, diagnostics=True)
out = res.messages[-1]["content"]
out = out if isinstance(out, str) else json.dumps(out)
sys.stdout.write(out)
actions = [d.action for d in (res.diagnostics or []) if d.role == "tool"]
with open(side, "w") as fh:
    json.dump({"version": getattr(headroom, "__version__", "?"), "tokens_before": res.tokens_before,
               "tokens_after": res.tokens_after, "actions": actions, "warnings": seen,
               "transforms": list(res.transforms_applied)[:8]}, fh)
"""


def headroom_env(tmp: str) -> dict:
    """Environment of the headroom arm: offline, no telemetry, a private HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HEADROOM_", "THRESHER_"))}
    home = os.path.join(tmp, "hr-home")
    os.makedirs(home, exist_ok=True)
    env.update(HEADROOM_OFFLINE="1", HEADROOM_TELEMETRY="off", HOME=home)
    return env


def usable(python: str) -> str:
    """"" when ``python`` can import headroom, else the reason it cannot run here."""
    if not os.path.exists(python):
        return (f"{python} does not exist; create it with: python3 -m venv {os.path.dirname(os.path.dirname(python))}"
                f" && {os.path.dirname(python)}/pip install 'headroom-ai==0.42.*'")
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([python, "-c", "import headroom, sys; print(headroom.__version__)"],
                             capture_output=True, text=True, env=headroom_env(tmp), timeout=300)
    if res.returncode != 0:
        tail = (res.stderr.strip().splitlines() or ["no error text"])[-1]
        return f"`import headroom` fails under {python}: {tail}"
    return ""


def run_shape(shape: str, mb: float, args, tmp: str, access_log: str) -> dict:
    """Both arms on the same bytes; medians over ``args.runs`` alternating rounds."""
    data = inputs.build(shape, int(mb * 1_000_000), access_log)
    path = os.path.join(tmp, f"{shape}.txt")
    with open(path, "wb") as fh:
        fh.write(data)
    command, code = inputs.SHAPES[shape]
    th_argv = [args.python, "-m", "thresher", "pipe", "--cmd", command] + (
        ["--exit-code", str(code)] if code else [])
    side = os.path.join(tmp, "hr-side.json")
    hr_argv = [args.headroom_python, "-c", HEADROOM_ONE, path, command, side]
    warm = os.path.join(tmp, f"{shape}-warm.txt")
    with open(warm, "wb") as fh:  # the graph's plan compiled and cached before anything is timed
        fh.write(data[:data.rfind(b"\n", 0, 64_000) + 1])
    measure(th_argv, warm, bench_env(tmp, "th-home"), tmp, keep_output=False)
    runs = {"thresher": [], "headroom": []}
    info: dict = {}
    for _ in range(args.runs):
        runs["thresher"].append(measure(th_argv, path, bench_env(tmp, "th-home"), tmp))
        runs["headroom"].append(measure(hr_argv, None, headroom_env(tmp), tmp, timeout=args.timeout))
        try:
            with open(side) as fh:
                info = json.load(fh)
            os.unlink(side)
        except (OSError, ValueError):
            info = {"warnings": ["headroom wrote no result (crashed or timed out)"]}
    exp = inputs.expected(shape, data)
    row = {"shape": shape, "bytes": len(data), "hr_info": info}
    for arm, rs in runs.items():
        row[arm] = {"wall": statistics.median(r.wall for r in rs), "cpu": statistics.median(r.cpu for r in rs),
                    "rss_mib": max(r.rss_kib for r in rs) / 1024, "out_bytes": len(rs[0].output),
                    "ok": all(r.status == 0 and not r.timed_out for r in rs),
                    "kept": inputs.kept(exp, rs[0].output), "raw": rs[0].output == data}
    os.unlink(path)
    return row


def kept(row: dict, arm: str, key: str) -> str:
    """``kept/of`` for one arm of a result row (error lines or line kinds kept)."""
    return "{}/{}".format(*row[arm]["kept"][key])


def report(rows: list[dict], args) -> list[str]:
    """Print the table and headroom's conditions; return the missed targets."""
    print(f"command: {' '.join(sys.argv)}\n{args.runs} alternating round(s) per shape, medians, "
          f"whole process; {args.mb:g} MB inputs from bench_inputs; at end: {load_note()}\n")
    print("| shape | thresher wall s | headroom wall s | wall ratio (hr/th) | thresher CPU s | headroom CPU s "
          "| CPU ratio | thresher peak RSS MiB | headroom peak RSS MiB | out KB th / hr | errors kept th / hr "
          "| kinds kept th / hr | targets |")
    print("|" + "---|" * 13)
    failed = []
    for r in rows:
        th, hr = r["thresher"], r["headroom"]
        fails = []
        if not hr["ok"]:
            fails.append("headroom run failed")
        elif hr["wall"] < 3 * th["wall"]:
            fails.append("thresher < 3x faster")
        if hr["ok"] and th["rss_mib"] >= hr["rss_mib"]:
            fails.append("thresher RSS not below headroom's")
        failed += [f"{r['shape']}: {f}" for f in fails]
        print(f"| {r['shape']} | {th['wall']:.2f} | {hr['wall']:.2f} | {hr['wall'] / th['wall']:.1f}x "
              f"| {th['cpu']:.2f} | {hr['cpu']:.2f} | {hr['cpu'] / max(th['cpu'], 1e-3):.1f}x | {th['rss_mib']:.0f} "
              f"| {hr['rss_mib']:.0f} | {th['out_bytes'] / 1000:,.0f} / {hr['out_bytes'] / 1000:,.0f} "
              f"| {kept(r, 'thresher', 'errors')} / {kept(r, 'headroom', 'errors')} "
              f"| {kept(r, 'thresher', 'kinds')} / {kept(r, 'headroom', 'kinds')} | {'ok' if not fails else '; '.join(fails)} |")
    print("\nheadroom per shape (its own token counts, the action it logged for the tool message):")
    warnings: list[str] = []
    for r in rows:
        h = r["hr_info"]
        print(f"- {r['shape']}: {h.get('tokens_before')} -> {h.get('tokens_after')} tokens; "
              f"actions {h.get('actions')}; output {'unchanged' if r['headroom']['raw'] else 'changed'}")
        warnings += [w for w in h.get("warnings", []) if w not in warnings]
    version = next((r["hr_info"].get("version") for r in rows if r["hr_info"].get("version")), "?")
    print(f"\nheadroom-ai {version} ran offline (HEADROOM_OFFLINE=1); warnings it logged:")
    for w in warnings or ["(none)"]:
        print(f"- {w}")
    return failed


def main() -> int:
    """Run both arms per shape and print the table; exit 1 on --check when a target fails."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=10.0, help="input size in MB (10)")
    ap.add_argument("--shapes", default=",".join(inputs.SHAPES), help="comma-separated subset of shapes")
    ap.add_argument("--runs", type=int, default=1, help="alternating rounds per shape (1)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with thresher installed")
    ap.add_argument("--headroom-python", default="/tmp/headroom-venv/bin/python",
                    help="interpreter of the venv with headroom-ai 0.42 (default /tmp/headroom-venv)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds before a headroom run is killed")
    ap.add_argument("--check", action="store_true", help="exit 1 if a target fails")
    args = ap.parse_args()
    shapes = [s for s in args.shapes.split(",") if s]
    bad = [s for s in shapes if s not in inputs.SHAPES]
    if bad:
        ap.error(f"unknown shape(s) {bad}; choose from {', '.join(inputs.SHAPES)}")
    why = usable(args.headroom_python)
    if why:
        print(f"headroom-ai cannot run here: {why}")
        return 1 if args.check else 0
    access_log = inputs.capture_access_log() if "access" in shapes else ""
    with tempfile.TemporaryDirectory(prefix="thresher-vs-hr-") as tmp:
        rows = []
        for shape in shapes:
            rows.append(run_shape(shape, args.mb, args, tmp, access_log))
            print(f"  done {shape}", file=sys.stderr, flush=True)
    failed = report(rows, args)
    print("\n" + ("all targets met" if not failed else f"{len(failed)} target(s) missed:\n- " + "\n- ".join(failed)))
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
