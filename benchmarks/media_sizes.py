"""What the media policy hands the agent, in bytes, for a real PDF and a real screenshot-sized PNG.

Makes, in a temporary folder: this project's README printed to a PDF by fpdf2 (Helvetica 9 pt,
45 lines a page), and a 2560x1600 PNG with scattered pixels (Pillow). Then runs ``thresher read``
on each, and ``thresher read PNG --image``, and prints the sizes. Needs the ``test`` extra (fpdf2,
Pillow) and ``pdftotext`` (Debian: ``apt-get install poppler-utils``).
Usage: ``python benchmarks/media_sizes.py``.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(HERE, "..", "README.md")
READ = [sys.executable, "-m", "thresher", "read"]


def make_pdf(path: str) -> int:
    """The README as a PDF (Latin-1, as fpdf2's core fonts write it); returns its page count."""
    from fpdf import FPDF
    with open(README, encoding="utf-8") as fh:
        lines = [ln.rstrip().encode("latin-1", "replace").decode("latin-1")
                 for ln in fh if ln.strip()]
    pdf = FPDF()
    pdf.set_font("Helvetica", size=9)
    for start in range(0, len(lines), 45):
        pdf.add_page()
        for line in lines[start:start + 45]:
            pdf.cell(0, 5, line[:110], new_x="LMARGIN", new_y="NEXT")
    pdf.output(path)
    return pdf.pages_count


def make_png(path: str) -> None:
    """A 2560x1600 white PNG with 4,000 grey points (seeded: the same file every run)."""
    from PIL import Image, ImageDraw
    img = Image.new("RGB", (2560, 1600), "white")
    draw, rng = ImageDraw.Draw(img), random.Random(1)
    for _ in range(4000):
        draw.point((rng.randrange(2560), rng.randrange(1600)), fill=(rng.randrange(256),) * 3)
    img.save(path)


def main() -> None:
    """Print the size of each input and of what ``thresher read`` writes for it."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, THRESHER_HOME=os.path.join(tmp, "home"))
        pdf, png = os.path.join(tmp, "readme.pdf"), os.path.join(tmp, "shot.png")
        pages = make_pdf(pdf)
        make_png(png)
        text = subprocess.run(["pdftotext", "-layout", pdf, "-"], capture_output=True,
                              check=True).stdout
        for path, what in ((pdf, f"README as a {pages}-page PDF"), (png, "2560x1600 PNG")):
            out = subprocess.run(READ + [path], capture_output=True, env=env, check=True).stdout
            footers = sum(1 for ln in out.splitlines() if b"lines omitted" in ln)
            extra = f"; pdftotext text {len(text):,} bytes" if path == pdf else ""
            print(f"{what}: {os.path.getsize(path):,} bytes -> thresher read {len(out):,} bytes"
                  f" ({footers} footer){extra}")
        out = subprocess.run(READ + [png, "--image"], capture_output=True, env=env, check=True)
        print("thresher read --image:", out.stdout.decode().strip().split(os.sep)[-1])


if __name__ == "__main__":
    main()
