"""Images for the agent: a copy within the model family's pixel cap, and the text-source check.

``thresher read IMG --image`` writes a downsampled copy (Pillow, the ``thresher[media]`` extra) and
prints its path. Before that, :func:`text_source` looks for the text the image may be a picture
of, deterministically and without OCR:

- a sibling with the same stem and a text extension (``shot.png`` → ``shot.md``, ``shot.txt``,
  ..., also ``shot.pdf``), or the stem itself when it names a text file (``README.md.png``);
- a metadata value (PNG text chunks, a JPEG/GIF comment, read by Pillow) naming an existing text
  file, relative to the image's folder or absolute.

It does not see text in the pixels, a source kept under another name or folder, or a sibling that
merely shares the stem by chance (``--image-anyway`` sends the image then).
"""

from __future__ import annotations

import math
import os

IMAGE_CAPS = {
    # Anthropic's "Images and vision" guide: an image whose long edge is over 1568 px, or that is
    # over ~1.15 megapixels (~1,600 tokens), is scaled down by the API before Claude sees it, so
    # more pixels cost latency and tokens but add no detail; over 8000x8000 px it is refused.
    "claude": (1568, 1_150_000),
}
"""Model family → (longest edge in pixels, pixel count) an image is downsampled to fit."""
SENDABLE = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp"}
"""Formats the model's API takes as they are (Claude: JPEG, PNG, GIF, WebP); others become PNG."""
TEXT_SOURCE_EXTS = (".md", ".markdown", ".txt", ".rst", ".adoc", ".org", ".tex", ".html", ".htm",
                    ".log", ".csv", ".tsv", ".json", ".yaml", ".yml", ".xml", ".pdf")
PILLOW_INSTALL = "needs Pillow: pip install 'thresher[media]'"


class ImageError(Exception):
    """An image that cannot be read or written (the message is one line for the agent)."""


def fit(width: int, height: int, family: str = "claude") -> tuple[int, int]:
    """The largest size with the same aspect ratio within ``family``'s cap (never enlarged)."""
    edge, pixels = IMAGE_CAPS[family]
    scale = min(1.0, edge / max(width, height), math.sqrt(pixels / (width * height)))
    return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))


def _is_text_file(path: str) -> bool:
    return path.lower().endswith(TEXT_SOURCE_EXTS) and os.path.isfile(path)


def text_source(path: str) -> "str | None":
    """The text file ``path`` (an image) is likely a picture of, or ``None`` (module docstring)."""
    stem, _ = os.path.splitext(path)
    if _is_text_file(stem):
        return stem
    for ext in TEXT_SOURCE_EXTS:
        for cand in (stem + ext, stem + ext.upper()):
            if os.path.isfile(cand):
                return cand
    return _metadata_source(path)


def _metadata_source(path: str) -> "str | None":
    """A text file named by the image's metadata (needs Pillow; ``None`` without it)."""
    try:
        from PIL import Image
        with Image.open(path) as img:
            info = dict(img.info)
    except Exception:  # noqa: BLE001 - no Pillow or an unreadable image: nothing named
        return None
    folder = os.path.dirname(path)
    for key in sorted(info, key=str):
        value = info[key]
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if not isinstance(value, str) or not 0 < len(value.strip()) < 4096:
            continue
        cand = os.path.join(folder, value.strip())  # an absolute value stays absolute
        if _is_text_file(cand) and not os.path.samefile(cand, path):
            return os.path.normpath(cand)
    return None


def downsample(path: str, handle: str, family: str, out: "str | None" = None):
    """Write ``path`` within ``family``'s cap; return ``(written, (w, h), (w2, h2))``.

    Orientation from EXIF is applied first (the model sees the picture upright); an animated image
    gives its first frame. An image already within the cap in a sendable format is not copied:
    ``written`` is ``path`` itself. Raises :class:`ImageError` with a one-line reason.
    """
    try:
        from PIL import Image, ImageOps
    except ImportError:
        raise ImageError(PILLOW_INSTALL) from None
    try:
        with Image.open(path) as opened:
            fmt, size = opened.format or "", opened.size
            img = ImageOps.exif_transpose(opened)
            new = fit(*img.size, family)
            ext = SENDABLE.get(fmt)
            if new == img.size == size and ext and out is None:
                return path, size, size
            if img.mode not in ("RGB", "RGBA", "L", "LA", "P"):
                img = img.convert("RGBA" if "A" in img.mode else "RGB")
            small = img.resize(new, Image.Resampling.LANCZOS) if new != img.size else img.copy()
    except Exception as exc:  # noqa: BLE001 - Pillow's errors are many; one line for the agent
        raise ImageError(f"cannot read the image: {type(exc).__name__}: {exc}") from None
    dest = out or _default_out(handle, new, ext or "png")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
        if (ext or "png") == "jpg" and small.mode not in ("RGB", "L"):
            small = small.convert("RGB")
        small.save(dest, format=_format_of(dest, fmt))
    except Exception as exc:  # noqa: BLE001
        raise ImageError(f"cannot write {dest}: {type(exc).__name__}: {exc}") from None
    return dest, size, new


def _format_of(dest: str, fmt: str) -> str:
    """Pillow's format name for ``dest`` by its extension (``fmt``'s, else PNG, when unknown)."""
    from PIL import Image
    ext = os.path.splitext(dest)[1].lower()
    Image.init()
    return Image.EXTENSION.get(ext) or (fmt if fmt in SENDABLE else "PNG")


def _default_out(handle: str, size: tuple[int, int], ext: str) -> str:
    """``$THRESHER_HOME/media/<handle>-<W>x<H>.<ext>`` (the data folder of the archive)."""
    from thresher.stores.db import home
    return os.path.join(home(), "media", f"{handle or 'image'}-{size[0]}x{size[1]}.{ext}")
