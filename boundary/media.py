"""Media policy, text first: binary content never reaches the agent as bytes.

- :func:`sniff` names binary content by its magic bytes (PNG, JPEG, PDF, gzip, ELF, SQLite, ...)
  or, with no known signature, by a high share of bytes no text has (control bytes, invalid
  UTF-8: more than :data:`BINARY_SHARE` of the first 64 KiB). Text, including NUL-separated
  listings and text with a few stray bytes, is ``None``: it goes through the graphs as before.
- :func:`describe` is the one line the agent gets instead of the bytes: type, size (pixels for
  images), and the archive handle whose ``thresher expand HANDLE --raw`` returns them byte-exact.
- :func:`pdf_text` transcodes a born-digital PDF with poppler's ``pdftotext -layout``; without it
  the caller prints one line naming the install (:data:`PDFTOTEXT_INSTALL`), never bytes.

Who reads the output decides nothing here: callers only use this where stdout is the agent's
(``thresher read``, ``pipe``, ``run`` as the hook wraps it; see ``cmd_run`` for PATH shims).
"""

from __future__ import annotations

import codecs

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from thresher.dataflow.api import Result
    from thresher.dataflow.shapes import ArchiveStore

HEAD = 65536
"""Bytes of the start that decide text or binary (the same window Guard uses)."""
BINARY_SHARE = 0.30
"""Share of the head made of non-text bytes (controls, invalid UTF-8) above which it is binary:
Latin-1 prose (French: ~11 % accents) and ``find -print0`` listings (one NUL a name) stay text;
random or compressed bytes are ~50 % non-text."""
UNKNOWN = "binary data (not UTF-8 text)"
"""The name of binary content without a known signature (legacy-encoded text is named so too)."""
PDFTOTEXT_INSTALL = ("pdftotext (poppler) is not installed: Debian/Ubuntu `sudo apt-get install "
                     "poppler-utils`, Fedora `sudo dnf install poppler-utils`, macOS `brew install "
                     "poppler`")
PDFTOTEXT_GUARD = 120
"""Seconds pdftotext may run: a hang guard only; when it fires the PDF is described, never cut."""

# (offset, signature, name, kind, strong). A weak signature (also a plausible start of text)
# counts only when :func:`_confirmed` finds the rest of its header, or the head is binary by share.
_MAGIC = (
    (0, b"\x89PNG\r\n\x1a\n", "PNG image", "image", True),
    (0, b"\xff\xd8\xff", "JPEG image", "image", True),
    (0, b"GIF87a", "GIF image", "image", True),
    (0, b"GIF89a", "GIF image", "image", True),
    (0, b"BM", "BMP image", "image", False),
    (0, b"II*\x00", "TIFF image", "image", True),
    (0, b"MM\x00*", "TIFF image", "image", True),
    (0, b"\x00\x00\x01\x00", "ICO image", "image", True),
    (0, b"%PDF-", "PDF document", "pdf", True),
    (0, b"PK\x03\x04", "ZIP archive (also docx/xlsx/jar/wheel)", "archive", True),
    (0, b"PK\x05\x06", "ZIP archive (empty)", "archive", True),
    (0, b"\x1f\x8b", "gzip data", "archive", True),
    (0, b"BZh", "bzip2 data", "archive", False),
    (0, b"\xfd7zXZ\x00", "xz data", "archive", True),
    (0, b"(\xb5/\xfd", "zstd data", "archive", True),
    (0, b"7z\xbc\xaf\x27\x1c", "7-zip archive", "archive", True),
    (257, b"ustar\x00", "tar archive", "archive", True),
    (257, b"ustar  \x00", "tar archive", "archive", True),
    (0, b"\x7fELF", "ELF executable", "binary", True),
    (0, b"\xcf\xfa\xed\xfe", "Mach-O executable", "binary", True),
    (0, b"MZ", "Windows executable", "binary", False),
    (0, b"\x00asm", "WebAssembly module", "binary", True),
    (0, b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary", "binary", True),
    (0, b"SQLite format 3\x00", "SQLite database", "binary", True),
    (0, b"OggS\x00", "Ogg media", "media", True),
    (0, b"fLaC", "FLAC audio", "media", False),
    (0, b"ID3", "MP3 audio", "media", False),
    (0, b"\x1aE\xdf\xa3", "Matroska/WebM video", "media", True),
    (0, b"wOFF", "WOFF font", "binary", False),
    (0, b"wOF2", "WOFF2 font", "binary", False),
)
_RIFF = {b"WEBP": ("WebP image", "image"), b"WAVE": ("WAV audio", "media"),
         b"AVI ": ("AVI video", "media")}
_FTYP = {b"avif": ("AVIF image", "image"), b"heic": ("HEIC image", "image"),
         b"heix": ("HEIC image", "image"), b"mif1": ("HEIF image", "image")}
_NOT_CONTROL = bytes(b for b in range(256) if not (0 < b < 32 and b not in b"\t\n\r\f\v\b\x1b"
                                               or b == 127))
"""Every byte but the controls text never has (NUL apart): deleting these leaves those to count."""


class Media:
    """What a binary payload is: ``name`` ("PNG image"), ``kind`` (image, pdf, archive, media,
    binary) and, for images whose header says so, ``size`` in pixels."""

    __slots__ = ("name", "kind", "size")

    def __init__(self, name: str, kind: str, size: "tuple[int, int] | None" = None) -> None:
        self.name, self.kind, self.size = name, kind, size


def non_text_share(head: bytes) -> float:
    """The share of ``head`` that no text has: control bytes plus invalid UTF-8 sequences, a NUL
    counting a quarter (NUL-separated names are text; zero-filled data is not)."""
    if not head:
        return 0.0
    controls = len(head.translate(None, _NOT_CONTROL))
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(head)  # a cut last char is fine
    invalid = text.count("\ufffd") - head.count(b"\xef\xbf\xbd")
    return (controls + max(invalid, 0) + head.count(0) / 4) / len(head)


def sniff(data: bytes) -> "Media | None":
    """The :class:`Media` ``data`` is, or ``None`` when it is text (see the module docstring)."""
    head = data[:HEAD]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") and not head.startswith(b"\xff\xfe\x00\x00"):
        return None  # UTF-16 text with its byte-order mark
    binary = non_text_share(head) > BINARY_SHARE
    for offset, sig, name, kind, strong in _MAGIC:
        if head[offset:offset + len(sig)] == sig and (strong or binary or _confirmed(sig, head)):
            return Media(name, kind, image_size(head) if kind == "image" else None)
    if head[:4] == b"RIFF" and head[8:12] in _RIFF:
        name, kind = _RIFF[head[8:12]]
        return Media(name, kind, image_size(head) if kind == "image" else None)
    if head[4:8] == b"ftyp":
        name, kind = _FTYP.get(head[8:12], ("MP4/QuickTime media", "media"))
        return Media(name, kind)
    return Media(UNKNOWN, "binary") if binary else None


def _confirmed(sig: bytes, head: bytes) -> bool:
    """Whether the header after a weak signature is the format's (BMP, bzip2, Windows PE)."""
    if sig == b"BM":  # the DIB header's size: BITMAPCOREHEADER .. BITMAPV5HEADER
        return head[14:15] in (b"\x0c", b"\x28", b"\x34", b"\x38", b"\x6c", b"\x7c") \
            and head[15:18] == b"\0\0\0"
    if sig == b"BZh":  # block size digit, then the first block's magic (BCD pi)
        return head[3:4].isdigit() and head[4:10] == b"1AY&SY"
    if sig == b"MZ":
        at = int.from_bytes(head[60:64], "little")
        return head[at:at + 4] == b"PE\0\0"
    return False


def image_size(head: bytes) -> "tuple[int, int] | None":
    """Width and height from the header of a PNG, GIF, BMP, WebP or JPEG (``None`` if unread)."""
    be, le = int.from_bytes, lambda b: int.from_bytes(b, "little")
    if head.startswith(b"\x89PNG") and head[12:16] == b"IHDR":
        return be(head[16:20], "big"), be(head[20:24], "big")
    if head[:3] == b"GIF":
        return le(head[6:8]), le(head[8:10])
    if head[:2] == b"BM" and len(head) >= 26:
        return le(head[18:22]), abs(int.from_bytes(head[22:26], "little", signed=True))
    if head[:4] == b"RIFF" and head[12:16] == b"VP8X":
        return 1 + le(head[24:27]), 1 + le(head[27:30])
    if head[:4] == b"RIFF" and head[12:16] == b"VP8 " and len(head) >= 30:
        return le(head[26:28]) & 0x3FFF, le(head[28:30]) & 0x3FFF
    if head[:3] == b"\xff\xd8\xff":
        return _jpeg_size(head)
    return None


def _jpeg_size(head: bytes) -> "tuple[int, int] | None":
    """The size in the first start-of-frame marker (SOF0..SOF15 but DHT/JPG/DAC) of a JPEG."""
    i = 2
    while i + 9 < len(head):
        if head[i] != 0xFF:
            return None
        marker, length = head[i + 1], int.from_bytes(head[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            be = int.from_bytes
            return be(head[i + 7:i + 9], "big"), be(head[i + 5:i + 7], "big")
        i += 2 + length
    return None


def archive(data: bytes, meta: dict[str, object], store: ArchiveStore | None = None) -> str:
    """Store ``data`` (in ``store``, default the archive) and return its handle, or ``""`` when
    it cannot be stored (never raises)."""
    try:
        from thresher.dataflow.api import MAX_INPUT, handle_of
        if len(data) > MAX_INPUT:
            return ""
        handle = handle_of(data)
        if store is None:
            from thresher.stores.archive import default_archive
            store = default_archive()
        store.put(handle, data, {"class": "media", **meta})
        return handle
    except Exception:  # noqa: BLE001 - no archive: the line says so, still no bytes
        return ""


def describe(media: Media, nbytes: int, handle: str, *, subject: str = "binary output",
             notes: "tuple[str, ...]" = ()) -> str:
    """The one line shown instead of the bytes (no newline), e.g.
    ``[thresher: binary output not shown: PNG image, 640x480, 20,316 bytes · thresher expand
    0fbf1ee8fd08 --raw > FILE]``."""
    size = f", {media.size[0]}x{media.size[1]}" if media.size else ""
    parts = [f"[thresher: {subject} not shown: {media.name}{size}, {nbytes:,} bytes", *notes]
    parts.append(f"thresher expand {handle} --raw > FILE" if handle
                 else "not archived (too large or no store)")
    return " · ".join(parts) + "]"


def pdf_text(data: bytes) -> "tuple[str | None, str]":
    """``(text, "")`` from ``pdftotext -layout`` (pages end in form feeds), or ``(None, why)``."""
    import shutil
    import subprocess
    exe = shutil.which("pdftotext")
    if exe is None:
        return None, PDFTOTEXT_INSTALL
    try:
        done = subprocess.run([exe, "-layout", "-enc", "UTF-8", "-", "-"], input=data,
                              capture_output=True, timeout=PDFTOTEXT_GUARD, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"pdftotext failed: {type(exc).__name__}"
    if done.returncode != 0:
        errs = [ln for ln in done.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        last = errs[-1] if errs else "no message"
        return None, f"pdftotext failed (exit {done.returncode}): {last}"
    return done.stdout.decode("utf-8", "replace"), ""


def pages(text: str) -> int:
    """Pages in ``pdftotext`` output (each page ends in a form feed)."""
    return text.count("\f") or 1


def binary_result(data: bytes, *, command: str = "", stream: str = "stdout",
                  exit_code: int | None = None, store: ArchiveStore | None = None
                  ) -> Result | None:
    """What ``run``/``pipe`` emit for a binary payload: an engine-shaped ``Result`` whose output
    is the one line of :func:`describe` (the bytes archived first, in ``store``: default the
    archive), or ``None`` for text."""
    found = sniff(data)
    if found is None:
        return None
    import time
    from thresher.dataflow.api import Result
    from thresher.dataflow.finalize import Emission
    t0 = time.perf_counter()
    handle = archive(data, {"command": command, "exit_code": exit_code, "stream": stream}, store)
    notes = ("its text: thresher read FILE.pdf",) if found.kind == "pdf" else ()
    line = describe(found, len(data), handle, notes=notes) + "\n"
    em = Emission(line.encode(), "described", f"{found.name}: binary output not shown as bytes",
                  handle=handle)
    return Result(em, None, "", "media", (time.perf_counter() - t0) * 1000, handle, bool(handle))
