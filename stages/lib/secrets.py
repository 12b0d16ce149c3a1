"""Secret masking beyond env listings: JSON credential keys, HTTP auth headers, and ``expand``.

- JSON (the ``mask-json`` stage, json graph): a string value under a credential key
  (``"password"``, ``"secret"``, ``"token"``, ``"apiKey"``, ``"client_secret"``... judged by
  :func:`thresher.stages.listings.distill_env.secret_name` on the key, camelCase split) or shaped like a
  credential (:func:`~thresher.stages.listings.distill_env.secret_value`) is replaced in its line by
  ``"[thresher: value masked, N chars]"`` (N: the characters between the quotes, as written), so a
  pretty-printed document stays valid JSON and every other byte of the line stays.
- HTTP headers (``distill-http``): a ``curl -v`` request or response header that carries a
  credential (``Authorization``, ``Proxy-Authorization``, ``Cookie``, ``Set-Cookie``,
  ``X-Api-Key``, ``X-Auth-Token``...) keeps its name and becomes
  ``> Authorization: [thresher: value masked, N chars]``.

Each masked line is a declared summary line (origin ``SYNTHETIC``): the input line is dropped
from the view, counted in the footer and retrievable through ``thresher expand``; a view that
masks anything is marked ``redacted`` (INV-2 yields to hiding a credential), as in distill-env.

:func:`mask_archived` is ``thresher expand``'s side: the archived original of a payload whose
class masks secrets comes back with the same values masked, line for line (line numbers keep
matching the footer's), unless the user asks for ``--unmasked``.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import SYNTHETIC

from thresher.stages.listings.distill_env import _SECRET_PART, _SECRET_VALUE, secret_name, secret_value
from thresher.stages.listings.distill_env import mask_lines as mask_env_lines
from thresher.stages.lib.text import candidate_mask, combine, needed_literals, ones

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from thresher.dataflow.payload import Payload

# a JSON string, or the unterminated rest of the line: it cannot fail once it starts at a quote
# (a lone trailing backslash is consumed too), so finditer never re-scans; the loop is possessive
# (an escape pair or a plain character per step, never re-split), so matching is linear
_TOKEN = re.compile(r'"((?:[^"\\\n]|\\.)*+\\?)("|$)')
# a run of blanks is scanned once, from its first character (search stays linear)
_SEP = re.compile(r"(?<![ \t])[ \t]*:[ \t]*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HEADER = re.compile(r"^(?P<head>[<>] |)(?P<name>[A-Za-z][A-Za-z0-9-]*):[ \t]?(?P<value>.*?)(?P<cr>\r?)$")
_AUTH_HEADERS = frozenset({"AUTHORIZATION", "PROXY_AUTHORIZATION", "COOKIE", "SET_COOKIE",
                           "X_API_KEY", "X_AUTH_TOKEN", "X_ACCESS_TOKEN", "X_CSRF_TOKEN",
                           "X_XSRF_TOKEN", "API_KEY", "X_AMZ_SECURITY_TOKEN"})
_NOT_SECRET_HEADERS = frozenset({"WWW_AUTHENTICATE", "PROXY_AUTHENTICATE", "CONTENT_LENGTH"})
# credential_value: one-word keys that name a credential in a config and an ordinary thing elsewhere
_AMBIGUOUS = frozenset({"TOKEN", "AUTH", "PASS", "SIGNATURE", "PRIVATE", "CERT", "SALT", "COOKIE", "DSN"})
_PLACEHOLDER = re.compile(r"[*xX.-]*|<[^<>]*>|\$\{[^{}]*\}|\$[A-Z_][A-Z0-9_]*|\{\{[^{}]*\}\}|%\([^()]*\)s")
MIN_SECRET = 4
MIN_AMBIGUOUS = 8
# a line mask_json_line changes holds a credential key (each of its name parts is a substring of
# the key: one of these, lower-cased) or a credential-shaped value (a literal that shape needs)
_KEY_WORDS = tuple(sorted({w.lower() for w in _SECRET_PART} | {"key", "pwd"}))
_VALUE_LITERALS = tuple(sorted(needed_literals(_SECRET_VALUE.pattern) or ()))


def masked_value(chars: int) -> str:
    """The text that stands for a masked value of ``chars`` characters."""
    return f"[thresher: value masked, {chars} chars]"


def _key_name(key: str) -> str:
    return _CAMEL.sub("_", key).replace("-", "_").replace(".", "_").replace(" ", "_")


def secret_key(key: str) -> bool:
    """True when a JSON key names a credential (``password``, ``apiKey``, ``client-secret``)."""
    return secret_name(_key_name(key))


def credential_value(key: str, value: str) -> bool:
    """True when the string ``value`` under ``key`` (both as written between their quotes) may be a
    credential: shaped like one (a ``ghp_…`` token, a private key, a URL with a password), or under
    a credential key and not something that cannot be one:

    - shorter than :data:`MIN_SECRET` characters (``"NX"``, ``"on"``) or a placeholder (``"***"``,
      ``"<token>"``, ``"${DB_PASSWORD}"``, ``"{{ secret }}"``): nothing to hide, and the mask would
      cost more than the value;
    - under a one-word key that is also an ordinary word (:data:`_AMBIGUOUS`: a command grammar's
      ``"token": "NX"``, a function's ``"signature"``, ``"auth": "required"``), only a value with
      a credential's shape of its own: at least :data:`MIN_AMBIGUOUS` characters, no blank, and a
      digit or both cases (a random key has them; ``"required"``, ``"KEEPTTL"`` do not).
    """
    if secret_value(value):
        return True
    name = _key_name(key)
    if not secret_name(name) or len(value) < MIN_SECRET or _PLACEHOLDER.fullmatch(value):
        return False
    if name.upper() in _AMBIGUOUS:
        return len(value) >= MIN_AMBIGUOUS and not any(c.isspace() for c in value) and (
            any(c.isdigit() for c in value) or (value.lower() != value and value.upper() != value))
    return True


def mask_json_line(line: str) -> str | None:
    """``line`` with every credential string value masked, or ``None`` when it has none."""
    if '"' not in line:
        return None
    tokens = list(_TOKEN.finditer(line))
    out, pos = [], 0
    for key, value in zip(tokens, tokens[1:]):
        if key.start() < pos or not (key[2] and value[2]) or \
                _SEP.fullmatch(line, key.end(), value.start()) is None:
            continue  # not a closed "key": "value" pair
        if credential_value(key[1], value[1]):
            out.append(line[pos:value.start()] + f'"{masked_value(len(value[1]))}"')
            pos = value.end()
    return "".join(out) + line[pos:] if out else None


def mask_header_line(line: str) -> str | None:
    """A ``curl -v`` header line (``> Authorization: Bearer x``) with its credential masked."""
    m = _HEADER.match(line)
    if m is None or not m["value"]:
        return None
    name = m["name"].upper().replace("-", "_")
    if name in _NOT_SECRET_HEADERS or not (name in _AUTH_HEADERS or secret_name(name)):
        return None
    return f'{m["head"]}{m["name"]}: {masked_value(len(m["value"]))}{m["cr"]}'


def json_candidates(lines: list[str] | tuple[str, ...]) -> list[int] | None:
    """Indices of the lines :func:`mask_json_line` may change (a superset), or ``None`` (all)."""
    if not _VALUE_LITERALS:
        return None
    keys = candidate_mask(lines, _KEY_WORDS)
    values = candidate_mask(lines, _VALUE_LITERALS, fold=False)
    if keys is None or values is None:
        return None
    return list(ones(combine(keys, values)))


def mask_view(payload: Payload, mask: Callable[[str], str | None],
              keep: Callable[[Payload, int], bool] | None = None,
              only: Iterable[int] | None = None) -> Payload | None:
    """``payload`` with each view line ``mask(line)`` changes replaced by a summary line, marked
    ``redacted``; ``None`` when nothing is masked. ``keep(payload, i)`` true: line i stays;
    ``only``: the view lines that may change, in order (``None``: all)."""
    lines, origin, changed = list(payload.lines), list(payload.origin), False
    memo: dict[str, str | None] = {}   # ``mask`` is a function of the line: output repeats lines
    for i in (range(len(lines)) if only is None else only):
        line = lines[i]
        if keep is not None and keep(payload, i):
            continue
        if line in memo:
            new = memo[line]
        else:
            new = memo[line] = mask(line)
        if new is not None and new != line:
            lines[i], origin[i], changed = new, SYNTHETIC, True
    return payload.with_view(lines, origin).evolve(redacted=True) if changed else None


def mask_kept_headers(raw: bytes) -> tuple[bytes, int] | None:
    """A failing ``curl -v``'s stderr with only its credential-bearing ``>``/``<`` header lines
    masked (never any other line: the error lines stay byte-exact), and how many were masked;
    ``None`` when there are none."""
    text = raw.decode("utf-8", "surrogateescape")
    lines, count = text.split("\n"), 0
    for i, line in enumerate(lines):
        if line.startswith(("> ", "< ")):
            new = mask_header_line(line)
            if new is not None:
                lines[i], count = new, count + 1
    return ("\n".join(lines).encode("utf-8", "surrogateescape"), count) if count else None


MASKING_CLASSES = ("env", "http", "json")


def mask_archived(raw: bytes, meta: dict) -> bytes | None:
    """The archived ``raw`` with what its payload class masks masked, line for line; ``None`` when
    the class masks nothing or nothing in ``raw`` is a secret."""
    pclass, command = meta.get("class") or "", str(meta.get("command") or "")
    if pclass not in MASKING_CLASSES:
        return None
    text = raw.decode("utf-8", "surrogateescape")
    end = "\n" if text.endswith("\n") else ""
    lines = (text[:-1] if end else text).split("\n")
    if pclass == "env":
        import shlex
        try:
            argv = shlex.split(command)
        except ValueError:
            argv = command.split()
        masked = mask_env_lines(lines, argv)
    else:
        mask = mask_json_line if pclass == "json" else mask_header_line
        masked = [mask(line) or line for line in lines]
    if masked is None or masked == lines:
        return None
    return ("\n".join(masked) + end).encode("utf-8", "surrogateescape")
