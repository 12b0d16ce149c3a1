"""The INV-3 check for stages that re-lay out a JSON document instead of selecting its lines.

The lossless tier's JSON forms and crush-json write lines that are no input line (a compact member,
a table row); the git blame distiller writes a row that continues its commit's run as ``N) code``,
which must be the exact tail of an input blame row (a hash at its start, a blank before ``N)``);
html-outline shows a chosen HTML row as markdown, whose words, anchors and hrefs must be the
input's. Such a line is no fabrication when every value it shows is an input lexeme: each
JSON string (or the verbatim prefix of one cut, ``"abc…"``) and each number occurs in
the input text, and everything else on the line is JSON punctuation, ``true``/``false``/``null``,
or the stage's own counted elisions (``{…12 keys}``, ``[…3 items]``). The oracle asks this only of
graphs that contain such a stage.
"""

from __future__ import annotations

import functools
import html
import re

JSON_IMPLS = frozenset({"thresher.stages.data.crush_json:run", "thresher.stages.generic.lossless:run"})
"""Stages whose synthetic lines may re-lay out JSON values."""
BLAME_IMPLS = frozenset({"thresher.stages.vcs.distill_git_blame:run"})
"""Stages whose synthetic lines may show a git blame row without its commit prefix (``N) code``)."""
HTML_IMPLS = frozenset({"thresher.stages.documents.html_outline:run"})
"""Stages whose synthetic lines may show an HTML row as markdown."""
RELAYOUT_IMPLS = JSON_IMPLS | BLAME_IMPLS | HTML_IMPLS

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_CUT = re.compile(r'…" \(\+\d+ chars\)')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_COUNTS = re.compile(r"…\d+ (?:keys|items)|\(\+\d+ chars\)")
_REST = re.compile(r"^(?:[\s{}\[\],:]|true|false|null)*$")


_BLAME_TAIL = re.compile(r"^\d+\)(?: |$)")
_HASH_HEAD = re.compile(r"\^?[0-9a-f]{7,}\b")  # matched at a line start: no ^


def relays_out(plan: dict) -> bool:
    """True when ``plan`` has a stage that may re-lay out its input."""
    return any(n["impl"] in RELAYOUT_IMPLS for n in plan["nodes"].values())


def relaid_from_input(line: str, text: str, plan: dict) -> bool:
    """True when ``line`` is a re-layout that one of ``plan``'s stages may write, of ``text``."""
    impls = {n["impl"] for n in plan["nodes"].values()}
    return bool(impls & JSON_IMPLS) and values_from_input(line, text) or \
        bool(impls & BLAME_IMPLS) and blame_tail_from_input(line, text) or \
        bool(impls & HTML_IMPLS) and markdown_from_input(line, text)


_MD_ANCHOR = re.compile(r'<a id="([^"]*)"></a>')
_MD_HREF = re.compile(r"\]\(([^()\s]*)\)")
_MD_MARKS = re.compile(r"[`\[\]]")
_MD_PUNCT = re.compile(r"^(?:#{1,6}|[-|]|\d+\.)$")


@functools.lru_cache(maxsize=4)
def _visible(text: str) -> tuple[str, str, str]:
    """``text`` with every tag removed, and replaced by a blank, entities decoded (what a page
    shows: ``<b>x</b>y`` reads ``xy``, ``a<br>b`` reads ``a b``), and all of it decoded (for
    attribute values written with entities)."""
    return (html.unescape(re.sub(r"<[^>]*>", "", text)), html.unescape(re.sub(r"<[^>]*>", " ", text)),
            html.unescape(text))


def markdown_from_input(line: str, text: str) -> bool:
    """True when ``line`` is an HTML row as markdown: each ``<a id="X"></a>`` an ``id="X"`` of the
    input, each link target an input href, and each other word in the input (as written or as
    shown), markdown punctuation (``#``, ``-``, ``|``, backticks, brackets) aside."""
    if any(f'id="{m}"' not in text and f"id='{m}'" not in text and not re.search(
            rf"\bid={re.escape(m)}[\s>]", text) for m in _MD_ANCHOR.findall(line)):
        return False
    shown = _visible(text)
    if any(f'"{m}"' not in shown[2] and f"'{m}'" not in shown[2] and f"={m}" not in shown[2]
           for m in _MD_HREF.findall(line)):
        return False
    rest = _MD_HREF.sub(" ", _MD_ANCHOR.sub(" ", line))
    for word in rest.split():
        # the backticks markdown adds, and the bracket of a link whose target was cut off above
        forms = {word.replace("`", ""), _MD_MARKS.sub("", word).strip("()")} - {""}
        if not forms or any(_MD_PUNCT.match(w) or w in text for w in forms):
            continue
        if not any(html.unescape(w) in shown[0] or html.unescape(w) in shown[1] for w in forms):
            return False
    return True


def blame_tail_from_input(line: str, text: str) -> bool:
    """True when ``line`` (``N) code``) ends an input line that starts with a commit hash and has
    a blank before ``N)``."""
    if not _BLAME_TAIL.match(line):
        return False
    text = "\n" + text + "\n"
    at = text.find(line)
    while at >= 0:
        start, end = text.rfind("\n", 0, at) + 1, at + len(line)
        # the row ends there (Read drops trailing carriage returns)
        if text[at - 1] in " \t(" and text[end:text.find("\n", end)].strip("\r") == "" \
                and _HASH_HEAD.match(text, start):
            return True
        at = text.find(line, at + 1)
    return False


def values_from_input(line: str, text: str) -> bool:
    """True when every string and number ``line`` shows occurs verbatim in ``text``."""
    rest, pos = [], 0
    for m in _STRING.finditer(line):
        lexeme = m.group()
        if lexeme.endswith('…"'):
            lexeme = lexeme[:-2]  # a cut string (``"abc…"``, its count in the summary block, or
            # ``"abc…" (+N chars)``): its shown prefix must be in the input
        if lexeme not in text:
            return False
        rest.append(line[pos:m.start()])
        pos = m.end()
    rest.append(line[pos:])
    body = _COUNTS.sub(" ", " ".join(rest))  # the stage's own counts, computed from the input
    if any(m.group() not in text for m in _NUMBER.finditer(body)):
        return False
    return _REST.match(_NUMBER.sub(" ", body)) is not None
