"""Render ``thresher gain --html`` in headless Chromium and save a screenshot (charts included).

Fills a throw-away THRESHER_HOME with a week of real events (the captured fixtures run through the
engine, spread over seven days, a few expanded afterwards), writes the HTML report, and has Debian's
``chromium`` take a screenshot with the flags this machine needs offline. It then checks that the
charts' green and red bars are really painted (a tiny PNG decoder below, no imaging library).

Usage: ``python benchmarks/screenshot_gain.py [--out gain.png] [--html gain.html] [--home DIR]``
(``--home`` reports an existing THRESHER_HOME instead of the demo). Exit 2 when chromium is absent.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures")
GREEN, RED = (0x2E, 0x7D, 0x32), (0xC6, 0x28, 0x28)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]


def chromium() -> str | None:
    """Path of a Chromium binary, if one is installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def fill_demo(home: str) -> int:
    """Run every fixture through the engine into ``home``'s ledger, spread over a week."""
    os.environ["THRESHER_HOME"] = home
    from thresher.dataflow.api import compress
    from thresher.stores import savings
    from thresher.stores.db import database
    cases = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.json"))):
        with open(path, encoding="utf-8") as fh:
            cases.append(json.load(fh))
    n = 0
    for day in range(7):
        for i, case in enumerate(cases):
            if (i * 3 + day) % 4:
                continue  # about a quarter of the fixtures each day, a different mix every day
            for stream in ("stdout", "stderr"):
                raw = (case.get(stream) or "").encode()
                if raw:
                    res = compress(raw, command=case["command"], exit_code=case.get("exit_code"),
                                   stream=stream)
                    savings.record_payload(res, raw, command=case["command"], stream=stream,
                                           exit_code=case.get("exit_code"))
                    n += 1
        database().connect().execute("UPDATE events SET ts = ts - 86400 WHERE id <= ?", (n,))
    conn = database().connect()
    for _event_id, handle, t_in in conn.execute(
            "SELECT id, handle, tokens_in FROM events WHERE decision = 'compressed' "
            "ORDER BY id LIMIT 3").fetchall():
        savings.bounce(handle, t_in)  # the agent read the whole original after all
    return n


def png_pixels(path: str) -> tuple[int, int, list[bytes]]:
    """Width, height and unfiltered rows of an 8-bit RGB/RGBA, non-interlaced PNG."""
    with open(path, "rb") as fh:
        data = fh.read()
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            if depth != 8 or color not in (2, 6):
                raise ValueError("only 8-bit RGB/RGBA PNGs are supported")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            p = a + b - c
            pred = (a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c)
                    else b if abs(p - b) <= abs(p - c) else c)
            line[i] = (line[i] + (0, a, b, (a + b) // 2, pred)[kind]) & 0xFF
        rows.append(bytes(line))
        prev = line
    if bpp == 4:  # drop alpha
        rows = [b"".join(r[i:i + 3] for i in range(0, stride, 4)) for r in rows]
    return width, height, rows


def count_color(path: str, rgb: tuple[int, int, int], tolerance: int = 8) -> int:
    """How many pixels of the screenshot are within ``tolerance`` of ``rgb``."""
    _, _, rows = png_pixels(path)
    lo = [max(c - tolerance, 0) for c in rgb]
    hi = [min(c + tolerance, 255) for c in rgb]
    n = 0
    for row in rows:
        reds, greens, blues = row[0::3], row[1::3], row[2::3]
        n += sum(1 for r, g, b in zip(reds, greens, blues)
                 if lo[0] <= r <= hi[0] and lo[1] <= g <= hi[1] and lo[2] <= b <= hi[2])
    return n


def screenshot(html: str, out: str, size: str = "1000,1500") -> None:
    """Have headless Chromium render ``html`` (a file) to the PNG ``out``."""
    binary = chromium()
    if binary is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="thresher-chromium-") as profile:
        subprocess.run([binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                        f"--window-size={size}", f"--screenshot={os.path.abspath(out)}",
                        "file://" + os.path.abspath(html)],
                       check=True, capture_output=True, timeout=120)


def main(argv: list[str] | None = None) -> int:
    """Build the demo (or use --home), write the HTML, screenshot it, check the bars."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="gain.png")
    ap.add_argument("--html", default=None, help="where to keep the HTML (default: next to --out)")
    ap.add_argument("--home", help="report this THRESHER_HOME instead of a demo one")
    args = ap.parse_args(argv)
    if chromium() is None:
        print("screenshot_gain: chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    html = args.html or os.path.splitext(args.out)[0] + ".html"
    with tempfile.TemporaryDirectory(prefix="thresher-gain-") as tmp:
        home = args.home or tmp
        if not args.home:
            print(f"demo ledger: {fill_demo(home)} payloads over 7 days")
        env = {**os.environ, "THRESHER_HOME": home}
        subprocess.run([sys.executable, "-m", "thresher", "gain", "--html", html], env=env, check=True)
    screenshot(html, args.out)
    green, red = count_color(args.out, GREEN), count_color(args.out, RED)
    print(f"wrote {args.out}: {green} green and {red} red bar pixels")
    return 0 if green > 500 else 1


if __name__ == "__main__":
    sys.exit(main())
