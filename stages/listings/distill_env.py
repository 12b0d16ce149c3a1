"""distill-env: ``env`` / ``printenv`` listings with secret values masked and the names kept.

Every variable stays in the view, in order. A variable whose value is a secret — by its name
(``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ``*_API_KEY``, ...) or by its value (``ghp_…``, ``sk-…``,
``AKIA…``, JWTs, PEM private keys, ``scheme://user:password@host``) — is shown as
``NAME=[thresher: value masked, 40 chars]``; huge noise values (``LS_COLORS``) as
``NAME=[thresher: value not shown, 1523 chars]``.

Why this is not fabrication (INV-3): the executor rejects any *input* line that comes out changed,
so a masked line is not an edited input line. The input line is dropped from the view (it is
counted as omitted in the footer and stays retrievable, byte-exact, through ``thresher expand``),
and in its place this stage — declared ``emits_summaries`` in the registry — writes a SYNTHETIC
summary line. Every fact in it is computed from the input: the variable's name, copied, and the
exact length of the value it stands for (and its line count when the value spans lines). The
``[thresher: ...]`` brackets say the line is thresher's, not env's, so no reader takes it for the
variable's real value.

A view that masks a secret is marked ``redacted``: the executor emits it even when it is not
smaller than the input (hiding a credential outranks never-worse, INV-2), e.g. a one-line
``printenv GITHUB_TOKEN``. The env graph turns off Guard's tiny/small passthrough and Route's
minimum saving, so masking reaches every env/printenv output; a stage failure still fails open.

``.env`` files read with ``cat``/``head``/``tail`` (classified ``env`` too) are masked the same way:
comments, blank lines and plain variables stay byte-exact; a secret ``[export ]NAME=value`` line
becomes ``[export ]NAME=[thresher: value masked, N chars]`` (N counts the value as written, quotes
included; a quoted value spanning lines is one masked line with its line count).

:func:`mask_lines` is the line-for-line form ``thresher expand`` uses on the archived original of
an env payload: the same values masked, every other line byte-exact, line numbers unchanged.
"""

from __future__ import annotations

import re

from thresher.dataflow.payload import SYNTHETIC

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from typing import Any
    from thresher.dataflow.contract import Context
    from thresher.dataflow.payload import Payload

_VAR = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<value>.*)$")
_SECRET_PART = frozenset({"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "APIKEY", "CREDENTIALS",
                          "CREDENTIAL", "PRIVATE", "COOKIE", "AUTH", "SALT", "SIGNATURE", "DSN", "CERT"})
_SECRET_PAIR = re.compile(r"(?:^|_)(?:API|ACCESS|SECRET|PRIVATE|ENCRYPTION|SIGNING|MASTER|CLIENT|APP)_KEY(?:_|$)")
_NOT_SECRET_LAST = frozenset({"FILE", "PATH", "DIR", "SOCK", "SOCKET", "LENGTH", "LEN", "MIN", "MAX", "ENABLED",
                              "TYPE", "HOST", "PORT", "USER", "USERNAME", "NAME", "URL_PATH", "HEADER", "MODE",
                              "PROVIDER", "REGION", "EXPIRY", "TTL", "TIMEOUT", "VERSION"})
_SECRET_VALUE = re.compile(
    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abposr]-[\w-]{10,}|"
    r"AKIA[0-9A-Z]{16}|AIza[\w-]{30,}|glpat-[\w-]{16,}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]+)|"
    # a URL's scheme starts where a scheme run starts (the lookbehind): tried from every letter of
    # a long word, the scheme scan made the search quadratic; a run led by a digit masks too
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|(?<![a-z0-9+.-])[a-z0-9+.-]+://[^/\s:@]+:[^/\s@]+@")


def secret_name(name: str) -> bool:
    """True when ``name`` says its value is a credential (``PASSWORD_MIN_LENGTH`` does not)."""
    upper = name.upper()
    parts = upper.split("_")
    if parts[-1] in _NOT_SECRET_LAST and len(parts) > 1:
        return False
    if parts[-1] == "PWD" and len(parts) > 1:  # DB_PWD is a password; PWD and OLDPWD are folders
        return True
    return bool(_SECRET_PART.intersection(parts)) or _SECRET_PAIR.search(upper) is not None


def secret_value(value: str) -> bool:
    """True when ``value`` has the shape of a token, a private key or a URL with a password."""
    return _SECRET_VALUE.search(value) is not None


_DOTENV = re.compile(r"^(?P<export>export[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*"
                     r"(?P<value>.*)$")


def _dotenv_records(lines) -> list[tuple[int, int, re.Match[str] | None]] | None:
    """``(start, end, match)`` per line group of a ``.env`` file; ``None`` when it is not one.

    A comment or blank line is its own group (match ``None``); a value that opens a quote it does
    not close continues on the following lines up to the line that closes it.
    """
    groups: list[tuple[int, int, re.Match[str] | None]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            groups.append((i, i + 1, None))
            i += 1
            continue
        m = _DOTENV.match(line)
        if m is None:
            return None
        end, value = i + 1, m["value"]
        quote = value[:1]
        if quote in ("'", '"') and (len(value) < 2 or not value.rstrip().endswith(quote)):
            while end < len(lines) and not lines[end].rstrip().endswith(quote):
                end += 1
            end = min(end + 1, len(lines))
        groups.append((i, end, m))
        i = end
    return groups if any(m is not None for _, _, m in groups) else None


def _dotenv_secret(m, values: list[str]) -> bool:
    return secret_name(m["name"]) or any(secret_value(v) for v in values)


def _dotenv(payload) -> tuple[list, list] | None:
    """Masked view of a ``.env`` file (``cat .env``), or ``None`` when it is not one."""
    groups = _dotenv_records(payload.lines)
    if groups is None:
        return None
    out, origin, changed = [], [], False
    for start, end, m in groups:
        values = [m["value"]] + list(payload.lines[start + 1:end]) if m else []
        if m is None or not _dotenv_secret(m, values):
            out.extend(payload.lines[start:end])
            origin.extend(payload.origin[start:end])
            continue
        out.append((m["export"] or "") + _masked(m["name"], values, "masked"))
        origin.append(SYNTHETIC)
        changed = True
    return (out, origin) if changed else None


def mask_lines(lines: list[str], argv: "list[str] | tuple[str, ...]") -> list[str] | None:
    """``lines`` (an env/printenv listing or a ``.env`` file) with the values :func:`run` masks
    masked in place, line for line (a value's continuation lines become one-line notes); ``None``
    when nothing is masked. For ``thresher expand``: same masking, same line numbers."""
    tool = argv[0].rsplit("/", 1)[-1] if argv else ""
    printenv = _printenv_values_of(lines, argv) if tool == "printenv" else None
    if printenv is not None:
        return printenv
    if tool in ("env", "printenv"):
        groups = [(a, b, _VAR.match(lines[a])) for a, b in _records(lines) or []]
    else:
        groups = _dotenv_records(lines) or []
    out, changed = list(lines[:groups[0][0]]) if groups else [], False
    for start, end, m in groups:
        values = [m["value"]] + list(lines[start + 1:end]) if m else []
        if m is None or not _dotenv_secret(m, values):
            out.extend(lines[start:end])
            continue
        prefix = m["export"] or "" if "export" in m.re.groupindex else ""
        out.append(prefix + _masked(m["name"], values, "masked"))
        out.extend(f"[thresher: line {k} of {m['name']}'s value masked]"
                   for k in range(2, end - start + 1))
        changed = True
    return out if changed else None


def _printenv_values_of(lines: list[str], argv) -> list[str] | None:
    names = [a for a in argv[1:] if not a.startswith("-")]
    if not names:
        return None
    if len(lines) != len(names):  # an unset name prints nothing: values no longer pair with names
        if not any(secret_name(n) for n in names) and not any(secret_value(v) for v in lines):
            return None
        return [f"[thresher: printenv output line masked, {len(v)} chars]" for v in lines]
    out = [_masked(n, [v], "masked") if secret_name(n) or secret_value(v) else v
           for n, v in zip(names, lines)]
    return out if out != list(lines) else None


def _records(lines) -> list[tuple[int, int]] | None:
    """``(start, end)`` view ranges of one variable each (a value may continue on later lines).

    A line shaped ``NAME=`` starts a variable, except inside a PEM block (``-----BEGIN`` until
    ``-----END``) and when the "value" starts with ``=`` (base64 padding such as ``Zm9v==``).
    """
    if not lines or not _VAR.match(lines[0]):
        return None
    starts, in_pem = [], False
    for i, line in enumerate(lines):
        m = _VAR.match(line)
        if m and not in_pem and not m["value"].startswith("="):
            starts.append(i)
        if "-----BEGIN " in line:
            in_pem = True
        if "-----END " in line:
            in_pem = False
    return [(s, e) for s, e in zip(starts, starts[1:] + [len(lines)])]


def _masked(name: str, value_lines: list[str], verb: str) -> str:
    chars = len("\n".join(value_lines))
    extra = f", {len(value_lines)} lines" if len(value_lines) > 1 else ""
    return f"{name}=[thresher: value {verb}, {chars} chars{extra}]"


def _listing(payload, params) -> tuple[list, list] | None:
    """Masked view of a NAME=value listing, or ``None`` when the output is not one."""
    lines = payload.lines
    records = _records(lines)
    if records is None:
        return None
    noise = set(params["noise_names"])
    out, origin, changed = [], [], False
    for start, end in records:
        m = _VAR.match(lines[start])
        assert m is not None  # _records() starts a record only where _VAR matches
        values = [m["value"]] + list(lines[start + 1:end])
        verb = None
        if secret_name(m["name"]) or any(secret_value(v) for v in values):
            verb = "masked"
        elif m["name"] in noise and len("\n".join(values)) > params["noise_min_chars"]:
            verb = "not shown"
        if verb is None:
            out.extend(lines[start:end])
            origin.extend(payload.origin[start:end])
            continue
        out.append(_masked(m["name"], values, verb))
        origin.append(SYNTHETIC)
        changed = True
    return (out, origin) if changed else None


def _printenv_values(payload) -> tuple[list, list] | None:
    """``printenv NAME...`` prints bare values: mask them when a name or a value is secret."""
    names = [a for a in payload.argv[1:] if not a.startswith("-")]
    if not names or not payload.argv or payload.argv[0].rsplit("/", 1)[-1] != "printenv":
        return None
    lines = list(payload.lines)
    if not any(secret_name(n) for n in names) and not any(secret_value(v) for v in lines):
        return None
    if len(lines) == len(names):
        out = [_masked(n, [v], "masked") if secret_name(n) or secret_value(v) else v
               for n, v in zip(names, lines)]
        origin = [SYNTHETIC if shown != v else payload.origin[i]
                  for i, (shown, v) in enumerate(zip(out, lines))]
        return out, origin
    chars = len("\n".join(lines))
    return [f"[thresher: printenv output masked, {len(lines)} lines, {chars} chars]"], [SYNTHETIC]


def run(payload: Payload, params: dict[str, Any], _ctx: Context) -> Payload | None:
    """The listing with secret (and huge noise) values replaced by counted summary lines."""
    if any(o < 0 for o in payload.origin):
        return None  # already summarised upstream: the view no longer maps line for line
    found = _listing(payload, params) or _printenv_values(payload) or _dotenv(payload)
    if found is None:
        return None
    view = payload.with_view(*found)
    # a masked secret is emitted even where the masked form is not smaller (INV-2 yields to it)
    return view.evolve(redacted=any("value masked" in ln or "output masked" in ln
                                    for ln, o in zip(view.lines, view.origin) if o == SYNTHETIC))
