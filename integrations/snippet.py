"""The short note for the agent (CLAUDE.md / AGENTS.md): what thresher's markers mean, how to expand.

Honest and small (it is read every session): it explains the footers and the commands, and never
tells the agent to avoid its native tools. The block sits between two HTML comments so ``thresher
init --uninstall`` can take exactly it out again (byte-exact when the file was not edited around it).
"""

from __future__ import annotations

import os

BEGIN, END = "<!-- thresher:begin -->", "<!-- thresher:end -->"
TEXT = """## Shortened command output (thresher)

Some command output here is shortened by thresher before you see it; the original is archived.
- A footer such as `[thresher: 454 of 671 lines omitted · thresher expand 0fbf1ee8fd08 --lines 9-67]`
  says exactly what was left out. Run that command to see those lines (`--grep RE` searches the
  original, no option prints all of it). Error lines, failing tests and file:line locations are
  never left out.
- `[thresher: 57 lines already shown above · thresher expand H --lines A-B]` marks output you
  were already given in this session.
- `thresher read PATH` shows a large file as an outline; `--mode full`, `--lines A-B`,
  `--mode section:NAME` or `--mode signatures` give the part you need.
- `THRESHER_RAW=1 <command>` runs a command with its output untouched.
"""


def block() -> str:
    """The marked block, ending with a newline."""
    return f"{BEGIN}\n{TEXT}{END}\n"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def add(path: str) -> str:
    """Append the block to ``path`` (created if missing) unless it is there; say what happened."""
    text = _read(path)
    if text is not None and BEGIN in text:
        return f"agent notes already in {path}"
    if text is None:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path + ".thresher-absent", "w", encoding="utf-8"):
            pass
    sep = "\n" if text else ""  # remove() takes exactly this newline out again
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(sep + block())
    return f"added agent notes to {path}"


def remove(path: str) -> str:
    """Take the block (and the newline added before it) out of ``path``."""
    text = _read(path)
    if text is None:
        return f"no {path}"
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return f"no agent notes in {path}"
    head, tail = text[:start], text[end + len(END):]
    tail = tail[1:] if tail.startswith("\n") else tail
    if head.endswith("\n"):
        head = head[:-1]  # the separator add() wrote
    new = head + tail
    absent = path + ".thresher-absent"
    if not new.strip() and os.path.exists(absent):
        os.remove(path)
        os.remove(absent)
        return f"removed {path} (thresher created it)"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(new)
    return f"removed agent notes from {path}"
