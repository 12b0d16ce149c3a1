"""Capture HTML documentation fixtures (issue 16, mechanism 4: HTML read as markdown).

Each case runs ``cat`` on a documentation page that a Debian or rustup package installed here
(Sphinx pages of Jinja2 and Click: ``apt-get install python-jinja2-doc python-click-doc``; an
mdBook page of the Rust toolchain's own docs) and writes ``tests/fixtures/<id>.json``. ``must_keep``
is picked from the raw page by plain rules independent of the distiller: the text of every
``<h1>``-``<h3>`` (tags stripped, whitespace collapsed, Sphinx's pilcrow dropped) and every
``id="..."`` of a ``<dt>`` (one per API entry). Pages missing here are skipped.
Usage: ``python benchmarks/capture_html.py``.
"""

from __future__ import annotations

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_docs import run, save

PAGES = (("html-own-jinja2-sandbox", "/usr/share/doc/python-jinja2-doc/html/sandbox.html"),
         ("html-own-click-options", "/usr/share/doc/python-click-doc/html/options.html"),
         ("html-own-rustc-codegen",
          "/root/.rustup/toolchains/*/share/doc/rust/html/rustc/codegen-options/index.html"))


def facts(page: str) -> list[str]:
    """Heading texts and definition-term anchors of ``page`` (its main part: Sphinx's sidebar
    after ``role="main"`` and mdBook's menu before ``id="content"`` are navigation)."""
    out = []
    start = max(page.find('role="main"'), page.find('id="content"'), 0)
    end = page.find('class="sphinxsidebar"', start)
    page = page[start:end if end > 0 else len(page)]
    for m in re.finditer(r"(?s)<h[1-3][^>]*>(.*?)</h[1-3]>", page):
        text = " ".join(re.sub(r"<[^>]+>", " ", m.group(1)).replace("¶", "").split())
        text = re.sub(r" (?=[,.;:)])|(?<=\() ", "", text)
        if text:
            out.append(text)
    out += [f'id="{m.group(1)}"' for m in re.finditer(r'<dt\b[^>]*\bid="([^"]+)"', page)]
    return out


def main() -> None:
    for cid, pattern in PAGES:
        hits = sorted(glob.glob(pattern))
        if not hits:
            print(f"{pattern}: not installed, skipped", file=sys.stderr)
            continue
        folder, name = os.path.split(hits[0])
        out, err, code = run(f"cat {name}", folder)
        save(cid, "html", f"cat {name}", out, err, code, facts(out), f"{hits[0]} (cat)")


if __name__ == "__main__":
    main()
