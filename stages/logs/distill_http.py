"""distill-http: curl / wget output without progress meters; headers and bodies stay byte-exact.

Dropped (counted in one summary line):
- curl's progress meter: its two heading lines and every meter row (``100  4459  100 ... 1451k``);
- curl ``-v`` data markers (``{ [4459 bytes data]``) and TLS record lines (``* TLSv1.3 (OUT), TLS
  handshake, Client hello (1):``) — the certificate facts (``* SSL certificate verify ok``,
  ``*  subject:``) and every error stay;
- wget's dot progress rows (``  50K .......... ....  0%  673M 0s``).

Credentials in headers (``> Authorization:``, ``> Cookie:``, ``< Set-Cookie:``, ``X-Api-Key``...)
are masked to ``> Authorization: [thresher: value masked, N chars]`` (declared summary lines, the
view marked ``redacted``; see :mod:`thresher.stages.lib.secrets`). Other request (``>``) and response
(``<``) headers, ``*`` connection notes, the body, wget's status lines
(``HTTP request sent, awaiting response... 200 OK``, ``Length:``, ``saved [n/n]``) and every error
are kept. A JSON body never reaches this stage (Guard passes it byte-exact); other bodies are the
answer and are only ever cut by the budget trim, which counts what it drops.
"""

from __future__ import annotations

import re

from thresher.stages.lib.dropsum import drop, protected
from thresher.stages.lib.secrets import mask_header_line, mask_view

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_NOISE = (
    (re.compile(r"^\s*% Total\s+% Received % Xferd\s+Average Speed|^\s+Dload\s+Upload\s+Total\s+Spent"),
     "progress meter line{s}"),
    (re.compile(r"^\s*\d{1,3}\s+[\d.]+[kMGTP]?\s+\d{1,3}\s+[\d.]+[kMGTP]?\s+\d{1,3}\s+[\d.]+[kMGTP]?\s+"
                r"[\d.]+[kMGTP]?\s+[\d.]+[kMGTP]?\s+(?:--:--:--|\d+:\d\d:\d\d)"), "progress meter line{s}"),
    (re.compile(r"^[{}] \[\d+ bytes data\]$"), "data marker{s}"),
    (re.compile(r"^\* (?:TLSv1\.[0-3]|SSLv3) \((?:IN|OUT)\), TLS (?:handshake|header|change cipher|alert)"),
     "TLS record line{s}"),
    (re.compile(r"^\s*\d+[KMG] (?:[. ]{10,})\s+\d{1,3}%\s+[\d.]+[KMGT]?(?:=[\d.]+s| \d+\S*)?$"),
     "wget progress row{s}"),
)


def _kind(line: str) -> str | None:
    for rx, kind in _NOISE:
        if rx.match(line):
            return kind
    return None


def run(payload: Payload, _params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The output without progress meters and transfer chatter, credentials in headers masked, or
    ``None`` when there is neither."""
    tool = "wget" if re.search(r"(?:^|[\s/])wget\s", payload.command) else "curl"
    dropped = drop(payload, [_kind(line) for line in payload.lines], tool)
    masked = mask_view(dropped or payload, mask_header_line, keep=protected)
    return masked or dropped
