"""Media policy: PDFs read as text, images and other binaries as one line, never bytes to the agent.

Every PDF and image here is made at run time by real libraries (fpdf2 writes the PDFs, Pillow the
images; both are in the ``test`` extra), and PDFs are transcoded by the real ``pdftotext`` (Debian
poppler-utils, installed by ``.ci/run``; those tests skip when it is absent).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import zipfile

import pytest

from thresher.boundary import media
from thresher.dataflow.markers import FOOTER_RE, elided
from thresher.media_image import IMAGE_CAPS, fit, text_source

Image = pytest.importorskip("PIL.Image", reason="Pillow is in the test extra (pip install -e '.[test]')")
FPDF = pytest.importorskip("fpdf", reason="fpdf2 is in the test extra").FPDF
PDFTOTEXT = shutil.which("pdftotext")
needs_pdftotext = pytest.mark.skipif(PDFTOTEXT is None, reason="pdftotext missing: apt-get install poppler-utils")
README = os.path.join(os.path.dirname(__file__), "..", "README.md")
TH = [sys.executable, "-m", "thresher"]
HANDLE = re.compile(r"thresher expand ([0-9a-f]{12}) --raw > FILE\]$")


def th(*args: str, stdin: bytes = b"", env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    """``thresher ARGS`` as a user runs it."""
    return subprocess.run(TH + list(args), input=stdin, capture_output=True, timeout=120,
                          env=dict(os.environ, **(env or {})), **kw)


def readme_lines(n: int | None = None) -> list[str]:
    """Lines of the project's README, as fpdf2's core fonts can write them (Latin-1)."""
    with open(README, encoding="utf-8") as fh:
        lines = [ln.rstrip().encode("latin-1", "replace").decode("latin-1") for ln in fh]
    return [ln for ln in lines if ln.strip()][:n]


def make_pdf(path, lines: list[str], per_page: int = 45) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=9)
    for start in range(0, len(lines), per_page):
        pdf.add_page()
        for line in lines[start:start + per_page]:
            pdf.cell(0, 5, line[:110], new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path.read_bytes()


def make_scanned_pdf(tmp_path) -> bytes:
    """A PDF whose only page is a picture of text (no text layer), as a scanner makes."""
    from PIL import ImageDraw
    img = Image.new("RGB", (800, 300), "white")
    ImageDraw.Draw(img).text((20, 20), "Invoice 42: total due 1,234.00", fill="black")
    img.save(tmp_path / "scan.png")
    pdf = FPDF()
    pdf.add_page()
    pdf.image(str(tmp_path / "scan.png"), w=180)
    pdf.output(str(tmp_path / "scan.pdf"))
    return (tmp_path / "scan.pdf").read_bytes()


def make_png(path, size=(3000, 2000), **save) -> bytes:
    img = Image.new("RGB", size, (30, 90, 160))
    img.paste((250, 250, 250), (size[0] // 4, size[1] // 4, size[0] // 2, size[1] // 2))
    img.save(path, **save)
    return path.read_bytes()


def handle_in(line: str) -> str:
    found = HANDLE.search(line.strip())
    assert found, line
    return found.group(1)


# -- sniffing --------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, name, size", [("PNG", "PNG image", (640, 480)),
                                             ("JPEG", "JPEG image", (641, 479)),
                                             ("GIF", "GIF image", (320, 200)),
                                             ("WEBP", "WebP image", (300, 301)),
                                             ("BMP", "BMP image", (120, 80)),
                                             ("TIFF", "TIFF image", (50, 40))])
def test_images_are_named_by_magic_with_their_pixel_size(fmt, name, size):
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(buf, format=fmt)
    found = media.sniff(buf.getvalue())
    assert found is not None and found.name == name and found.kind == "image"
    assert found.size in (size, None) and (fmt == "TIFF" or found.size == size)


def test_archives_databases_and_executables_are_binary(tmp_path):
    text = open(README, "rb").read()
    zbuf, tbuf = io.BytesIO(), io.BytesIO()
    with zipfile.ZipFile(zbuf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.md", text)
    with tarfile.open(fileobj=tbuf, mode="w") as tf:
        tf.add(README, arcname="README.md")
    db = tmp_path / "x.db"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.commit()
    cases = {"gzip data": gzip.compress(text), "bzip2 data": bz2.compress(text),
             "xz data": lzma.compress(text), "tar archive": tbuf.getvalue(),
             "ZIP archive (also docx/xlsx/jar/wheel)": zbuf.getvalue(),
             "SQLite database": db.read_bytes(), media.UNKNOWN: os.urandom(4096)}
    exe = open(os.path.realpath(sys.executable), "rb").read()
    if exe.startswith(b"\x7fELF"):
        cases["ELF executable"] = exe
    for name, data in cases.items():
        found = media.sniff(data)
        assert found is not None and found.name == name, name


def test_text_stays_text_also_latin1_nul_separated_and_utf16_with_bom():
    readme = open(README, "rb").read()
    french = "Le garçon était déjà là, près de la fenêtre ouverte sur la mer.\n" * 200
    names = "\0".join(sorted(os.listdir(os.path.dirname(README)))).encode()
    for data in (readme, french.encode("latin-1"), names, french.encode("utf-16"),
                 b"BMW and MZ are words too\n" * 50, b"fLaC, OggS and wOFF are formats\n" * 50, b""):
        assert media.sniff(data) is None


def test_describe_is_one_line_with_type_size_and_the_expand_command():
    found = media.Media("PNG image", "image", (640, 480))
    line = media.describe(found, 20316, "0fbf1ee8fd08")
    assert "\n" not in line and "PNG image, 640x480, 20,316 bytes" in line
    assert line.endswith("thresher expand 0fbf1ee8fd08 --raw > FILE]")
    assert "not archived" in media.describe(found, 1, "")


# -- images: cap and text source ---------------------------------------------------------------------

@pytest.mark.parametrize("size", [(3000, 2000), (8000, 1000), (1000, 8000), (1500, 1500), (640, 480), (1, 9000)])
def test_fit_stays_within_the_claude_cap_keeps_the_aspect_and_never_enlarges(size):
    edge, pixels = IMAGE_CAPS["claude"]
    w, h = fit(*size)
    assert max(w, h) <= edge and w * h <= pixels
    assert w <= size[0] and h <= size[1]
    if size[0] * size[1] <= pixels and max(size) <= edge:
        assert (w, h) == size
    else:
        assert abs(w / h - size[0] / size[1]) < 0.02 * size[0] / size[1] + 1 / h


def test_text_source_by_sibling_by_stem_and_by_metadata(tmp_path):
    from PIL.PngImagePlugin import PngInfo
    make_png(tmp_path / "plain.png", (20, 20))
    assert text_source(str(tmp_path / "plain.png")) is None
    make_png(tmp_path / "shot.png", (20, 20))
    (tmp_path / "shot.md").write_text("# the text\n")
    assert text_source(str(tmp_path / "shot.png")) == str(tmp_path / "shot.md")
    (tmp_path / "notes.txt").write_text("x\n")
    make_png(tmp_path / "notes.txt.png", (20, 20))
    assert text_source(str(tmp_path / "notes.txt.png")) == str(tmp_path / "notes.txt")
    info = PngInfo()
    info.add_text("Source", "docs/page.html")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.html").write_text("<p>x</p>\n")
    make_png(tmp_path / "capture.png", (20, 20), pnginfo=info)
    assert text_source(str(tmp_path / "capture.png")) == str(tmp_path / "docs" / "page.html")
    info = PngInfo()
    info.add_text("Source", "gone.md")  # names a file that does not exist: no pointer
    make_png(tmp_path / "other.png", (20, 20), pnginfo=info)
    assert text_source(str(tmp_path / "other.png")) is None


# -- thresher read, end to end -----------------------------------------------------------------------

@needs_pdftotext
def test_read_pdf_gives_its_text_through_the_file_graph_with_one_footer(tmp_path):
    lines = readme_lines()
    raw = make_pdf(tmp_path / "guide.pdf", lines)
    res = th("read", "guide.pdf", cwd=tmp_path)
    assert res.returncode == 0 and res.stderr == b""
    out = res.stdout.decode().splitlines()
    pages = -(-len(lines) // 45)
    assert out[0].startswith(f"[thresher: guide.pdf: PDF document, {pages} pages, {len(raw):,} bytes")
    text = subprocess.run([PDFTOTEXT, "-layout", str(tmp_path / "guide.pdf"), "-"],
                          capture_output=True, check=True).stdout.decode()
    footers = [ln for ln in out if FOOTER_RE.match(ln)]
    assert len(footers) == 1 and len(res.stdout) < len(text) // 2
    body = [ln for ln in out[1:] if not ln.strip().startswith("[thresher") and not elided(ln)]
    assert body and set(body) <= set(text.replace("\f", "\n").splitlines())
    assert b"%PDF" not in res.stdout
    back = th("expand", handle_in(out[0]), "--raw")
    assert back.returncode == 0 and back.stdout == raw  # the original PDF, byte-exact
    head = th("read", "guide.pdf", "--lines", "1-3", cwd=tmp_path).stdout.decode().splitlines()
    assert head[1:] == text.splitlines()[:3]


@needs_pdftotext
def test_read_short_pdf_is_whole_and_a_reread_in_a_session_is_a_stub(tmp_path):
    make_pdf(tmp_path / "memo.pdf", ["Release notes", "Version 2.1 fixes the login timeout."])
    env = {"THRESHER_SESSION": "cc-media-test"}
    first = th("read", str(tmp_path / "memo.pdf"), env=env).stdout.decode()
    assert "Version 2.1 fixes the login timeout." in first and "lines omitted" not in first
    again = th("read", str(tmp_path / "memo.pdf"), env=env).stdout.decode().splitlines()
    assert len(again) == 2 and again[1].startswith("[unchanged since you read it:")


@needs_pdftotext
def test_scanned_pdf_says_it_has_no_text_and_makes_none_up(tmp_path):
    make_scanned_pdf(tmp_path)
    res = th("read", str(tmp_path / "scan.pdf"))
    out = res.stdout.decode()
    assert res.returncode == 0 and out.count("\n") == 1
    assert "no text layer" in out and "Invoice" not in out and "nothing is transcribed" in out


def test_pdf_without_pdftotext_is_one_line_naming_the_install_never_bytes(tmp_path):
    raw = make_pdf(tmp_path / "guide.pdf", readme_lines(60))
    bindir = tmp_path / "bin"  # a PATH with python but no pdftotext
    bindir.mkdir()
    os.symlink(sys.executable, bindir / "python3")
    res = th("read", str(tmp_path / "guide.pdf"), env={"PATH": str(bindir)})
    assert res.returncode == 1 and res.stdout == b""
    err = res.stderr.decode()
    assert err.count("\n") == 1 and "apt-get install poppler-utils" in err
    assert f"PDF document, {len(raw):,} bytes" in err
    assert th("expand", handle_in(err), "--raw").stdout == raw


def test_read_image_is_one_line_and_expand_raw_gives_the_bytes(tmp_path):
    raw = make_png(tmp_path / "chart.png")
    res = th("read", str(tmp_path / "chart.png"))
    line = res.stdout.decode()
    assert res.returncode == 0 and line.count("\n") == 1
    assert f"PNG image, 3000x2000, {len(raw):,} bytes" in line and "--image" in line
    assert th("expand", handle_in(line), "--raw").stdout == raw


def test_read_image_flag_writes_a_copy_within_the_cap(tmp_path):
    make_png(tmp_path / "chart.png")
    res = th("read", str(tmp_path / "chart.png"), "--image")
    assert res.returncode == 0
    path = res.stdout.decode().split("  (")[0]
    with Image.open(path) as img:
        assert img.format == "PNG" and img.size == fit(3000, 2000) and max(img.size) <= 1568
    out = tmp_path / "small.jpg"
    make_png(tmp_path / "photo.jpg", (4000, 3000), format="JPEG")
    res = th("read", str(tmp_path / "photo.jpg"), "--image", "--image-out", str(out))
    with Image.open(out) as img:
        assert res.returncode == 0 and img.format == "JPEG" and img.size == fit(4000, 3000)
    make_png(tmp_path / "icon.png", (64, 64))  # within the cap already: the file itself
    res = th("read", str(tmp_path / "icon.png"), "--image")
    assert res.stdout.decode().startswith(f"{tmp_path / 'icon.png'}  (64x64 as it is")


def test_screenshot_of_text_is_refused_with_a_pointer_to_the_text(tmp_path):
    make_png(tmp_path / "error.png", (1200, 400))
    (tmp_path / "error.txt").write_text("Traceback (most recent call last):\n")
    res = th("read", str(tmp_path / "error.png"), "--image")
    err = res.stderr.decode()
    assert res.returncode == 1 and res.stdout == b""
    assert f"thresher read {tmp_path / 'error.txt'}" in err and "--image-anyway" in err
    plain = th("read", str(tmp_path / "error.png")).stdout.decode()
    assert f"text source: {tmp_path / 'error.txt'}" in plain
    res = th("read", str(tmp_path / "error.png"), "--image", "--image-anyway")
    assert res.returncode == 0 and res.stdout.decode().startswith(str(tmp_path / "error.png"))


def test_image_flag_on_text_or_pdf_is_a_usage_error(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    make_pdf(tmp_path / "b.pdf", ["x"])
    for name in ("a.txt", "b.pdf"):
        res = th("read", str(tmp_path / name), "--image")
        assert res.returncode == 2 and "--image needs an image" in res.stderr.decode()


def test_other_binary_files_are_one_line(tmp_path):
    blob = gzip.compress(open(README, "rb").read())
    (tmp_path / "r.gz").write_bytes(blob)
    res = th("read", str(tmp_path / "r.gz"))
    assert res.returncode == 0 and res.stdout.decode().count("\n") == 1
    assert f"gzip data, {len(blob):,} bytes" in res.stdout.decode()


# -- thresher run / pipe, end to end ---------------------------------------------------------------

def test_run_cat_image_is_one_line_exit_status_kept_and_bytes_expandable(tmp_path):
    raw = make_png(tmp_path / "x.png", (800, 600))
    res = th("run", "--", "cat", str(tmp_path / "x.png"))
    line = res.stdout.decode()
    assert res.returncode == 0 and line == media.describe(media.sniff(raw), len(raw),
                                                           handle_in(line)) + "\n"
    assert th("expand", handle_in(line), "--raw").stdout == raw
    res = th("run", "--", "sh", "-c", f"cat {tmp_path / 'x.png'}; exit 3")
    assert res.returncode == 3 and res.stdout == line.encode()


def test_pipe_binary_is_one_line_and_the_kill_switches_keep_bytes(tmp_path):
    raw = make_png(tmp_path / "x.png", (800, 600))
    res = th("pipe", "--cmd", "cat x.png", stdin=raw)
    assert res.returncode == 0 and res.stdout.count(b"\n") == 1 and b"PNG image, 800x600" in res.stdout
    assert th("expand", handle_in(res.stdout.decode()), "--raw").stdout == raw
    for env in ({"THRESHER_DISABLE": "1"}, {"THRESHER_MEASURE_ONLY": "1"}):
        assert th("pipe", stdin=raw, env=env).stdout == raw


def test_savings_event_of_a_described_payload(tmp_path):
    raw = make_png(tmp_path / "x.png", (800, 600))
    th("pipe", "--cmd", "cat x.png", stdin=raw)
    from thresher.stores.savings import load_events
    row = load_events()[-1]
    assert row["decision"] == "described" and row["bytes_in"] == len(raw)
    assert row["bytes_out"] < 200 and row["class"] == "media"


def test_under_a_shim_binary_into_a_pipe_stays_bytes(tmp_path):
    """A shim cannot tell ``git archive | tar x`` from the agent: bytes into a pipe stay bytes."""
    raw = make_png(tmp_path / "x.png", (80, 60))
    res = th("run", "--", "cat", str(tmp_path / "x.png"), env={"THRESHER_SHIMMED": "1"})
    assert res.stdout == raw


def test_pipe_binary_over_64_mib_is_one_line_in_bounded_memory(monkeypatch, capsysbinary):
    import thresher.dataflow.api as api
    from thresher.cmd_pipe import main
    monkeypatch.setattr(api, "MAX_INPUT", 1 << 16)
    blob = gzip.compress(os.urandom(1 << 17))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(blob)))
    assert main([]) == 0
    out = capsysbinary.readouterr().out.decode()
    assert out.count("\n") == 1 and f"gzip data, {len(blob):,} bytes" in out and "not archived" in out


@needs_pdftotext
def test_mcp_read_tool_gets_the_pdf_text_and_the_image_line(tmp_path):
    pytest.importorskip("mcp", reason="the MCP SDK is in the test extra")
    from thresher.integrations import mcp_server
    make_pdf(tmp_path / "memo.pdf", ["Release notes", "Version 2.1 fixes the login timeout."])
    raw = make_png(tmp_path / "x.png", (800, 600))
    roots = [str(tmp_path)]
    text = mcp_server._thresher(mcp_server.read_args("memo.pdf", "", "", roots, str(tmp_path)))
    assert "Version 2.1 fixes the login timeout." in text and "%PDF" not in text
    line = mcp_server._thresher(mcp_server.read_args("x.png", "", "", roots, str(tmp_path)))
    assert line.count("\n") == 1 and f"PNG image, 800x600, {len(raw):,} bytes" in line


def test_image_flag_without_pillow_names_the_extra(tmp_path, monkeypatch, capsys):
    make_png(tmp_path / "x.png", (3000, 2000))
    monkeypatch.setitem(sys.modules, "PIL", None)  # as on an install without thresher[media]
    from thresher.main import main
    assert main(["read", str(tmp_path / "x.png"), "--image"]) == 1
    assert "pip install 'thresher[media]'" in capsys.readouterr().err
    assert main(["read", str(tmp_path / "x.png")]) == 0  # the header still gives the size
    assert "PNG image, 3000x2000" in capsys.readouterr().out


def test_expand_without_raw_describes_a_binary_original_and_raw_gives_bytes(tmp_path):
    raw = make_png(tmp_path / "x.png", (800, 600))
    handle = handle_in(th("pipe", stdin=raw).stdout.decode())
    plain = th("expand", handle)
    assert plain.returncode == 0 and plain.stdout.count(b"\n") == 1 and b"PNG image, 800x600" in plain.stdout
    assert th("expand", handle, "--raw").stdout == raw


@needs_pdftotext
def test_a_pdf_pdftotext_cannot_open_is_one_line_with_its_reason(tmp_path):
    pdf = FPDF()
    pdf.set_encryption(owner_password="owner", user_password="secret")
    pdf.add_page()
    pdf.set_font("Helvetica")
    pdf.cell(0, 5, "quarterly numbers")
    pdf.output(str(tmp_path / "locked.pdf"))
    res = th("read", str(tmp_path / "locked.pdf"))
    err = res.stderr.decode()
    assert res.returncode == 1 and res.stdout == b"" and err.count("\n") == 1
    assert "pdftotext failed (exit 1): Command Line Error: Incorrect password" in err
    assert "quarterly" not in err
