"""Screenshots of the trace explorer and a graph page, made by the real commands in headless Chromium.

Runs ``thresher trace --cmd CMD --exit-code N --html trace.html < output`` on a captured fixture
(tests/fixtures/<id>.json: a real tool run), opens the page in Debian's ``chromium`` through
playwright (test extra) in an offline context, clicks the stage that removed the most lines, and
saves a screenshot; then does the same for ``thresher graph draw GRAPH --html``. It checks that
the picture holds the "applied" green of the node fills (pixel count, no imaging library) and
that the pages made no request but their own file.

Usage: ``python benchmarks/screenshot_viz.py [--case pytest-fail-verbose] [--graph json.default]
[--out docs/img]``. Writes ``trace-explorer.png`` and ``graph-page.png`` (and the .html pages,
kept in a temporary folder unless ``--keep-html``). Exit 2 when chromium or playwright is absent.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from screenshot_gain import FIXTURES, chromium, count_color  # noqa: E402 - benchmarks/ helper

APPLIED_FILL = (0xD7, 0xF5, 0xD3)


def run_thresher(args: list[str], stdin: str = "") -> str:
    """Run ``python -m thresher ARGS`` and return its stdout (raise on a non-zero exit)."""
    out = subprocess.run([sys.executable, "-m", "thresher", *args], input=stdin, text=True,
                         capture_output=True, check=False)
    if out.returncode:
        raise RuntimeError(f"thresher {shlex.join(args)} exited {out.returncode}: {out.stderr}")
    return out.stdout


def biggest_cut(case: dict) -> str:
    """The node that removed the most lines in this case's trace (the most telling diff)."""
    data = json.loads(run_thresher(["trace", "--cmd", case["command"], "--exit-code",
                                    str(case["exit_code"]), "--json"], case["stdout"]))
    stages = data["trace"]["stages"]
    return max(stages, key=lambda r: (r["lines_in"] - r["lines_out"], r["decision"] == "applied"))[
        "node"]


def shoot(html: str, png: str, click: str | None, size: tuple[int, int], full: bool) -> list[str]:
    """Open ``html`` offline, click node ``click``, screenshot to ``png``; return the requests."""
    from playwright.sync_api import sync_playwright
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        ctx = browser.new_context(offline=True, viewport={"width": size[0], "height": size[1]},
                                  device_scale_factor=1)
        page = ctx.new_page()
        page.on("request", lambda r: requests.append(r.url))
        page.goto("file://" + os.path.abspath(html))
        if click:
            page.click(f'svg.thresher-graph g.node[data-node="{click}"]')
        page.screenshot(path=png, full_page=full)
        browser.close()
    return requests


def main(argv: list[str] | None = None) -> int:
    """Write both pages with the real commands, screenshot them, check the pictures."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", default="pytest-fail-verbose", help="fixture id in tests/fixtures")
    ap.add_argument("--graph", default="json.default", help="graph drawn for graph-page.png")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "docs", "img"))
    ap.add_argument("--keep-html", action="store_true", help="keep the pages next to the PNGs")
    args = ap.parse_args(argv)
    if importlib.util.find_spec("playwright") is None:
        print("screenshot_viz: playwright is missing (pip install -e '.[test]')", file=sys.stderr)
        return 2
    if chromium() is None:
        print("screenshot_viz: chromium is not installed (apt-get install chromium)",
              file=sys.stderr)
        return 2
    with open(os.path.join(FIXTURES, args.case + ".json"), encoding="utf-8") as fh:
        case = json.load(fh)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="thresher-viz-") as tmp:
        where = args.out if args.keep_html else tmp
        trace_html = os.path.join(where, "trace-explorer.html")
        graph_html = os.path.join(where, "graph-page.html")
        command = ["trace", "--cmd", case["command"], "--exit-code", str(case["exit_code"]),
                   "--html", trace_html]
        run_thresher(command, case["stdout"])
        print(f"$ thresher {shlex.join(command)} < {args.case}.stdout")
        run_thresher(["graph", "draw", args.graph, "--html", "-o", graph_html])
        node = biggest_cut(case)
        shots = [(trace_html, "trace-explorer.png", node, (1400, 1000), False),
                 (graph_html, "graph-page.png", "crush" if args.graph == "json.default" else None,
                  (1100, 900), False)]
        ok = True
        for html, name, click, size, full in shots:
            png = os.path.join(args.out, name)
            requests = shoot(html, png, click, size, full)
            green = count_color(png, APPLIED_FILL, tolerance=3)
            local = all(r.startswith("file://") for r in requests)
            print(f"wrote {png}: clicked {click or '-'}, {green} applied-green pixels, "
                  f"{len(requests)} request(s), all local: {local}")
            ok = ok and local and (green > 500 or name != "trace-explorer.png")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
