"""``thresher read PATH [--mode MODE] [--lines A-B] [--query Q]``: read a file the way an agent should.

Modes:
- (none)          by file type and size: a large source file → its outline, a long markdown/HTML
                  page → headings + best lines, long prose → an extract; small files pass whole;
- ``full``        the file, byte-exact;
- ``outline``     code: imports, signatures, docstring first lines; markdown/HTML: headings only;
- ``signatures``  code: signature rows only;
- ``lines:A-B``   lines A to B (1-based, inclusive), byte-exact (same as ``--lines A-B``);
- ``section:NAME`` the markdown/HTML section under the heading NAME (sub-sections included);
- ``anchored``    every line (or ``--lines A-B``) prefixed ``N:hhhh|`` where ``hhhh`` is a short
                  hash of the line's content, so an edit planned from it can be checked for drift
                  with ``--verify N:hhhh`` (exit 1 and the current line when it changed).
The lossy modes run the file through the graph of its class (command ``thresher read PATH ...``),
so the original is archived and the one footer names ``thresher expand HANDLE``.

Media, text first (the bytes are archived; ``thresher expand HANDLE --raw > FILE`` gives them back):
- a PDF is read as its text, by ``pdftotext -layout`` (Debian: ``apt-get install poppler-utils``),
  after one line naming the original; every mode above then applies to that text. Without
  pdftotext, or when it fails: one line saying so on stderr, exit 1. A PDF with no text layer
  (scanned): one line saying no text was found, exit 0 — nothing is made up;
- an image: one line (type, width x height, size, handle, and the text it is a picture of when
  one is found: a sibling with the same stem and a text extension, or a file its metadata names).
  ``--image`` writes a copy within the model family's pixel cap (Pillow: ``pip install
  'thresher[media]'``; Claude: 1568 px long edge, 1.15 megapixels) and prints its path; it is
  refused, pointing to the text, when a text source is found (``--image-anyway`` overrides);
- any other binary file: one line (type by magic bytes, size, handle), never the bytes.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from thresher.media_image import IMAGE_CAPS

_MODES = ("full", "outline", "signatures", "anchored")


def anchor(line: bytes) -> str:
    """The 4-hex-digit content hash of one line (without its line ending)."""
    from blake3 import blake3
    return blake3(line.rstrip(b"\r\n")).hexdigest()[:4]


def parse_range(text: str) -> tuple[int, int]:
    """``"A-B"`` (or ``"A"``) → ``(A, B)``; raises ValueError."""
    a, _, b = text.partition("-")
    start, end = int(a), int(b or a)
    if start < 1 or end < start:
        raise ValueError(text)
    return start, end


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="thresher read", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("path")
    ap.add_argument("--mode", help="full|outline|signatures|anchored|lines:A-B|section:NAME")
    ap.add_argument("--lines", metavar="A-B", help="only lines A to B (1-based, inclusive)")
    ap.add_argument("--query", help="what you are looking for (steers which prose lines are kept)")
    ap.add_argument("--role", default=None, help="consumer role (default: $THRESHER_ROLE or default)")
    ap.add_argument("--fresh", action="store_true",
                    help="read in full even if this session already has the file (no stub, no diff)")
    ap.add_argument("--verify", action="append", metavar="N:HASH",
                    help="check that line N still has anchor HASH (repeatable); exit 1 on drift")
    media = ap.add_argument_group("images (see Media above)")
    media.add_argument("--image", action="store_true",
                       help="write a copy within the model family's pixel cap, print its path")
    media.add_argument("--family", default="claude", choices=sorted(IMAGE_CAPS),
                       help="model family whose image cap applies (default: claude)")
    media.add_argument("--image-out", metavar="FILE",
                       help="where --image writes (default: $THRESHER_HOME/media/HANDLE-WxH.EXT)")
    media.add_argument("--image-anyway", action="store_true",
                       help="--image even when the image's text source was found")
    return ap


def _verify(raw: bytes, checks: list[str]) -> int:
    lines, status = raw.splitlines(), 0
    for check in checks:
        n, _, want = check.partition(":")
        row = int(n) - 1 if n.isdigit() else -1
        now = anchor(lines[row]) if 0 <= row < len(lines) else None
        if now != want:
            status = 1
            shown = lines[row].decode("utf-8", "replace") if now else "(no such line)"
            sys.stdout.write(f"drift: line {n} is now {n}:{now}|{shown}\n")
    return status


def _slice(raw: bytes, a: int, b: int) -> list[bytes]:
    return raw.splitlines(keepends=True)[a - 1:b]


def _lossy(raw: bytes, args, mode: str | None) -> bytes:
    """Run the file through the graph of its class and return what the agent should see."""
    import os
    from thresher.dataflow.api import compress
    from thresher.dataflow.plan import PASSTHROUGH_CLASSES, load_plans
    plans = load_plans()
    # classify by the file name alone: folders in the path must not look like a tool (pytest-of-x)
    pclass = plans.classify(f"cat {shlex.quote(os.path.basename(args.path))}")
    if pclass in PASSTHROUGH_CLASSES:
        return raw
    words = ["thresher", "read", args.path] + (["--mode", mode] if mode else [])
    words += ["--query", args.query] if args.query else []
    role = args.role or os.environ.get("THRESHER_ROLE", "default")
    return compress(raw, command=shlex.join(words), exit_code=0, role=role, pclass=pclass,
                    plans=plans).output


def _write_remembered(args, raw: bytes, shown: bytes) -> None:
    """Write ``shown``, or a one-line stub / a diff when this reader scope already has the file.

    The read-stub cache (``thresher.stores.reads``) sends a stub only to a scope that was delivered
    exactly this content, a diff only against the version that scope saw; it learns only from
    whole deliveries (an outline is partial: the next read is full). Any cache error: ``shown``.
    """
    from thresher.boundary import switches
    reply, cache, scope = None, None, ""
    try:
        scope = "" if switches.read_stubs_off() else switches.scope()
        if scope:
            from thresher.stores.reads import ReadCache
            cache = ReadCache()
            reply = cache.check(scope, args.path, raw, fresh=args.fresh, shown_path=args.path)
    except Exception:  # noqa: BLE001 - a cache problem means a full read, never a failure
        cache = None
    text = reply.text if reply is not None else None
    if reply is not None and reply.kind == "stub" and text is not None:
        sys.stdout.buffer.write((text + "\n").encode())
        return
    diff = reply is not None and reply.kind == "diff" and text is not None
    sys.stdout.buffer.write(text.encode() if diff and text is not None else shown)
    sys.stdout.flush()
    try:
        if cache is not None:
            cache.delivered(scope, args.path, raw, complete=diff or shown == raw)
    except Exception:  # noqa: BLE001
        pass


def _section_missing(raw: bytes, name: str) -> str | None:
    """An error naming the headings when ``name`` is not one of them, else ``None``."""
    from thresher.stages.lib import html_doc
    from thresher.stages.lib import markdown_doc
    lines = raw.decode("utf-8", "replace").split("\n")
    hs = markdown_doc.headings(lines)
    doc = html_doc.parse(lines) if not hs else None
    if doc is not None:
        hs = [markdown_doc.Heading(r, lv, t) for r, lv, t in doc.headings]
    if markdown_doc.find_section(hs, name) is not None:
        return None
    titles = "\n".join(f"  {'#' * h.level} {h.title}" for h in hs) or "  (no headings)"
    return f"no section {name!r}; headings:\n{titles}\n"


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _media(args, raw: bytes, found) -> "tuple[bytes | None, int]":
    """A binary file the agent asked for: ``(text, 0)`` to read on (a PDF's text, after one line
    naming the original), or ``(None, status)`` once its one line is written."""
    from thresher.boundary import media
    if args.image and found.kind != "image":
        sys.stderr.write(f"thresher read: --image needs an image; {args.path} is a {found.name}\n")
        return None, 2
    handle = media.archive(raw, {"command": shlex.join(["thresher", "read", args.path])})
    subject = args.path
    if found.kind == "image":
        return None, _image(args, found, raw, handle)
    if found.kind != "pdf":
        _say(media.describe(found, len(raw), handle, subject=subject))
        return None, 0
    text, why = media.pdf_text(raw)
    if text is None:  # on stderr with exit 1, as every failure of thresher read (MCP shows it)
        line = media.describe(found, len(raw), handle, subject=subject, notes=(why,))
        sys.stderr.write(line + "\n")
        return None, 1
    n = media.pages(text)
    if not text.replace("\f", "").strip():
        note = (f"no text layer: pdftotext found no text on its {n} page{'s' * (n != 1)} "
                "(scanned or image-only?); nothing is transcribed")
        _say(media.describe(found, len(raw), handle, subject=subject, notes=(note,)))
        return None, 0
    _say(f"[thresher: {args.path}: {found.name}, {n} page{'s' * (n != 1)}, {len(raw):,} bytes; "
         "its text by pdftotext -layout follows"
         + (f" · original: thresher expand {handle} --raw > FILE]" if handle else "]"))
    return text.encode("utf-8"), 0


def _image(args, found, raw: bytes, handle: str) -> int:
    """The image's one line; with ``--image``, the path of a copy within the cap (or a refusal)."""
    from thresher.boundary import media
    from thresher.media_image import ImageError, downsample, text_source
    source = text_source(args.path)
    notes: tuple[str, ...] = (
        (f"text source: {source} (thresher read {shlex.quote(source)})",) if source else ())
    if not args.image:
        cap = IMAGE_CAPS[args.family]
        notes += (f"a copy within {args.family}'s {cap[0]} px cap: "
                  f"thresher read {shlex.quote(args.path)} --image",)
        _say(media.describe(found, len(raw), handle, subject=args.path, notes=notes))
        return 0
    if source and not args.image_anyway:
        sys.stderr.write(f"thresher read: not sending {args.path} as an image: it looks like a "
                         f"picture of {source}; read that instead (thresher read "
                         f"{shlex.quote(source)}), or pass --image-anyway\n")
        return 1
    try:
        dest, size, new = downsample(args.path, handle, args.family, args.image_out)
    except ImageError as exc:
        sys.stderr.write(f"thresher read: {args.path}: {exc}\n")
        return 1
    how = "as it is" if dest == args.path else f"from {size[0]}x{size[1]}"
    _say(f"{dest}  ({new[0]}x{new[1]} {how}; within {args.family}'s cap: "
         f"{IMAGE_CAPS[args.family][0]} px long edge, {IMAGE_CAPS[args.family][1]:,} pixels)")
    return 0


def run(args) -> int:
    """Print the file in the requested mode."""
    with open(args.path, "rb") as fh:
        raw = fh.read()
    from thresher.boundary.media import sniff
    found = sniff(raw)
    if found is not None:
        text, status = _media(args, raw, found)
        if text is None:
            return status
        raw = text
    elif args.image:
        sys.stderr.write(f"thresher read: --image needs an image; {args.path} is text\n")
        return 2
    if args.verify:
        return _verify(raw, args.verify)
    mode = args.mode
    if mode and mode.startswith("lines:"):
        args.lines, mode = mode[len("lines:"):], None
    if mode and mode not in _MODES and not mode.startswith("section:"):
        sys.stderr.write(f"thresher read: unknown mode {mode!r}\n")
        return 2
    out = sys.stdout.buffer
    if args.lines:
        a, b = parse_range(args.lines)
        rows = _slice(raw, a, b)
        if mode == "anchored":
            rows = [f"{a + k}:{anchor(r)}|".encode() + r for k, r in enumerate(rows)]
        out.write(b"".join(rows))
        return 0
    if mode in (None, "full"):
        _write_remembered(args, raw, raw if mode == "full" else _lossy(raw, args, mode))
    elif mode == "anchored":
        out.write(b"".join(f"{k}:{anchor(r)}|".encode() + r
                           for k, r in enumerate(raw.splitlines(keepends=True), 1)))
    else:
        if mode and mode.startswith("section:"):
            err = _section_missing(raw, mode[len("section:"):])
            if err:
                sys.stderr.write(f"thresher read: {err}")
                return 1
        out.write(_lossy(raw, args, mode))
    return 0


def main(argv: list[str]) -> int:
    """Entry point of ``thresher read``."""
    from thresher.common import run_command

    def body(args) -> int:
        try:
            return run(args)
        except ValueError as exc:
            sys.stderr.write(f"thresher read: bad range {exc}\n")
            return 2
    return run_command("thresher read", _parser(), argv, body)
