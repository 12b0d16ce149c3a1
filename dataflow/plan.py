"""Find graph files, and load their compiled plans from the cache (the data plane's entry).

Graph files are discovered in three places, later ones winning for the same ``class.role``:
built-in (the ``thresher.graphs`` package), user (``$THRESHER_CONFIG_HOME`` or
``~/.config/thresher/graphs``) and project (the nearest ``.thresher/graphs`` at or above the working
directory). All plans are compiled together and cached as one file keyed by the package and Python
versions and the paths, sizes and mtimes of the graph files, the declarative filter files (and, with
project filters, the trust records) and the registry/params sources. A rebuild also warms the
filter cache (``build.warm_filters``), so no stage compiles filters in its time budget. On a fresh
cache this module imports only ``os`` and ``marshal`` (``re`` only when a classify
rule's literal prefilter lets its regex run); a stale cache triggers
the control plane (``compile.py``) once. The cache is ``marshal`` data (plain dicts/lists/
strings; the key includes the Python version), the cheapest format to load at start-up.
"""

from __future__ import annotations

import os

import marshal
import sys

from . import __version__
from .paths import under_home

ORIGINS = ("built-in", "user", "project")
PASSTHROUGH_CLASSES = ("verbatim", "stream")
"""Classes the classifier may name that no graph handles: their output passes through unchanged."""
CLASSIFY_FILE = "classify.yaml"


def builtin_dir() -> str:
    """Folder of the shipped graphs: the ``thresher.graphs`` package, next to this one in the
    wheel and in the source tree alike (found without importing it: a start-up cost)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graphs")


def user_dir() -> str:
    """Folder of the user's own graphs."""
    base = os.environ.get("THRESHER_CONFIG_HOME") or os.path.join(
        os.environ.get("XDG_CONFIG_HOME") or under_home(".config"), "thresher")
    return os.path.join(base, "graphs")


def project_dir(cwd: str | None = None) -> str | None:
    """The nearest ``.thresher/graphs`` folder at or above ``cwd``, if any."""
    cur = os.path.abspath(cwd or os.getcwd())
    while True:
        cand = os.path.join(cur, ".thresher", "graphs")
        if os.path.isdir(cand):
            return cand
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        cur = parent


def cache_dir() -> str:
    """Where compiled plans are cached."""
    return os.environ.get("THRESHER_CACHE_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or under_home(".cache"), "thresher")


def examine_budget(default: int) -> int:
    """Bytes a graph examines: ``THRESHER_EXAMINE_MB`` (MiB, > 0) or ``default`` (see
    ``thresher.dataflow.big``; defined here so that asking costs no import on every command)."""
    try:
        mib = float(os.environ.get("THRESHER_EXAMINE_MB", ""))
    except ValueError:
        return default
    return max(4096, int(mib * 1024 * 1024)) if mib > 0 else default


def _listing(folder: str | None, suffixes: tuple[str, ...]) -> list[str]:
    """Paths of the files in ``folder`` ending in one of ``suffixes``, sorted by name."""
    if not folder or not os.path.isdir(folder):
        return []
    return [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(suffixes)]


def discover(cwd: str | None = None) -> list[tuple[str, str]]:
    """``(origin, path)`` of every graph and classify file, lowest precedence first."""
    return [(origin, path) for origin, folder in zip(ORIGINS, (builtin_dir(), user_dir(),
                                                              project_dir(cwd)))
            for path in _listing(folder, (".yaml", ".yml"))]


FILTER_SUFFIXES = (".yaml", ".yml", ".toml")
TRUST_FILE = "trusted-filters"
"""Under the config home: ``hash<TAB>absolute path`` of each trusted project filter file."""


def config_home() -> str:
    """``$THRESHER_CONFIG_HOME`` (default ``$XDG_CONFIG_HOME/thresher``, ``~/.config/thresher``)."""
    return os.path.dirname(user_dir())


def project_filter_files(cwd: str | None = None) -> list[str]:
    """Declarative filter files (``.thresher/filters.*``, ``.thresher/filters/*``) of the nearest
    ``.thresher`` folder at or above ``cwd`` that has any."""
    cur = os.path.abspath(cwd or os.getcwd())
    while True:
        base = os.path.join(cur, ".thresher")
        if os.path.isdir(base):
            found = [p for p in (os.path.join(base, "filters" + s) for s in FILTER_SUFFIXES)
                     if os.path.isfile(p)] + _listing(os.path.join(base, "filters"), FILTER_SUFFIXES)
            if found:
                return found
        parent = os.path.dirname(cur)
        if parent == cur:
            return []
        cur = parent


def user_filter_dir() -> str:
    """Folder of the user's own filter files."""
    return os.path.join(config_home(), "filters")


def shipped_filter_dir() -> str:
    """Folder of the shipped filter files."""
    return os.path.join(builtin_dir(), "filters")


def filter_files(cwd: str | None = None) -> list[tuple[str, str]]:
    """``(origin, path)`` of every declarative filter file in search order: project (trusted
    ones are used, see ``thresher.filters.trust``), user, shipped (``graphs/filters``)."""
    return ([("project", p) for p in project_filter_files(cwd)] +
            [("user", p) for p in _listing(user_filter_dir(), FILTER_SUFFIXES)] +
            [("shipped", p) for p in _listing(shipped_filter_dir(), FILTER_SUFFIXES)])


def _key_files(cwd: str | None) -> list[tuple[str, str]]:
    """Graph files, then filter files and (with any project file) the trust records: a change to
    any of them recompiles the plans and re-warms the filter cache (outside any stage budget)."""
    filters = filter_files(cwd)
    files = discover(cwd)
    extra = [("filter:" + origin, path) for origin, path in filters]
    trust = os.path.join(config_home(), TRUST_FILE)
    if any(origin == "project" for origin, _ in files + filters) and os.path.isfile(trust):
        extra.append(("trust", trust))
    return files + extra


def seeded_hash(modules: tuple[str, ...]) -> "blake3":
    """A blake3 hasher seeded with the package and Python versions and the source of ``modules``
    (so a cache keyed by it goes stale when the code that built it changes)."""
    from blake3 import blake3
    h = blake3(f"{__version__}\0{sys.version}".encode())
    import importlib.util
    for mod in modules:
        spec = importlib.util.find_spec(mod)
        if spec and spec.origin:
            with open(spec.origin, "rb") as fh:
                h.update(fh.read())
    return h


def file_stamp(path: str) -> str:
    """Size and modification time of ``path`` (``-`` when it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def _key(files: list[tuple[str, str]]) -> str:
    """The cache key: versions, the key modules' and every file's path, size and mtime.

    Stat-based, so a warm start reads no file bytes (a start-up cost on every agent command);
    any edit changes the size or the mtime, and a miss rebuilds from the files' bytes.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    stages = os.path.join(os.path.dirname(here), "stages")   # the registry, params models, user stages
    mods = [os.path.join(here, "build.py"), os.path.join(here, "compile.py")]
    mods += [os.path.join(stages, n) for n in ("registry.py", "params.py", "plugins.py", "declare.py")]
    # a stage may declare its own entry and params (stages/declare.py): every stage module counts
    mods += sorted(e.path for family in os.scandir(stages) if family.is_dir() and family.name != "lib"
                   and not family.name.startswith(("_", ".")) for e in os.scandir(family.path)
                   if e.name.endswith(".py"))
    parts = [__version__, sys.version] + [f"{m}\0{file_stamp(m)}" for m in mods]
    parts += [f"{origin}\0{path}\0{file_stamp(path)}" for origin, path in files]
    return _digest("\0\0".join(parts).encode("utf-8", "surrogatepass"))


_KEY_PRIME = (1 << 128) - 159
"""The largest prime below 2**128."""


def _digest(data: bytes) -> str:
    """32 hex digits naming ``data``: the bytes as one number modulo a 128-bit prime (with the
    length, so zero padding counts). A cache name, not a security check (the cache's owner and
    mode are, :func:`read_cache`): one bignum division, where importing a hash module costs
    more than the whole lookup on every command."""
    return f"{(int.from_bytes(data, 'little') * 1000003 + len(data)) % _KEY_PRIME:032x}"


def trusted_only(files: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(usable files, untrusted project files as (path, hash))``: a project graph or classify
    table is used only while its bytes are what the user trusted (``thresher trust PATH``)."""
    from . import trust
    records = trust.load() if any(o == "project" for o, _ in files) else {}
    usable, untrusted = [], []
    for origin, path in files:
        if origin == "project":
            data, digest = trust.read_trusted(path, records)
            if data is None:
                untrusted.append((path, digest))
                continue
        usable.append((origin, path))
    return usable, untrusted


class Plans:
    """All compiled plans plus the command → class table, and the errors of graphs that failed."""

    def __init__(self, data: dict) -> None:
        self.plans: dict[str, dict] = _Unpacked(data["plans"])
        self.sources: dict[str, list] = data.get("sources", {})
        self.errors: list[str] = data.get("errors", [])
        self.untrusted: list = data.get("untrusted", [])
        self.stamps: dict[str, str] = data.get("stamps", {})
        # Compiled on first use, one rule at a time: classifying a command stops at its first
        # match, and compiling all ~60 patterns at every start costs more than the lookup.
        self.rules = _Rules(data.get("classify", []))
        self.sniffs = _Rules(data.get("sniff", []))

    def resolve(self, pclass: str, role: str = "default") -> dict | None:
        """The plan for ``pclass`` and ``role``, falling back to default role and generic class."""
        for gid in (f"{pclass}.{role}", f"{pclass}.default", f"generic.{role}", "generic.default"):
            if gid in self.plans:
                return self.plans[gid]
        return None

    def classify(self, command: str) -> str:
        """The payload class of ``command`` (first matching rule; ``generic`` when none).

        Programs are judged by their base name: ``/usr/bin/git status`` (a PATH shim),
        ``./node_modules/.bin/tsc`` and ``/opt/py/bin/python3 -m pytest`` classify as typed bare.
        """
        command = program_basenames(command)
        return self.rules.first(as_file_read(command)) or "generic"

    def sniff(self, head: str) -> str | None:
        """The payload class fingerprinted from the first KiB of output, or ``None`` (unknown)."""
        return self.sniffs.first(head)


class _Unpacked(dict):
    """``graph id → plan``, where the cache stores each plan as its own marshal blob: a command
    uses one plan of ~60, so the others are never decoded (a start-up cost of every command)."""

    def __getitem__(self, gid: str) -> dict:
        plan = dict.__getitem__(self, gid)
        if isinstance(plan, bytes):
            plan = marshal.loads(plan)
            dict.__setitem__(self, gid, plan)
        return plan

    def get(self, gid: str, default=None):
        return self[gid] if gid in self else default

    def values(self):
        return [self[gid] for gid in self]

    def items(self):
        return [(gid, self[gid]) for gid in self]


def _packed(data: dict) -> dict:
    """``data`` as the cache stores it: each plan marshalled on its own (see :class:`_Unpacked`)."""
    return dict(data, plans={gid: marshal.dumps(plan) for gid, plan in data["plans"].items()})


class _Rules:
    """An ordered ``match → class`` table whose regexes compile on first use.

    A row's ``needles`` (``regex_needles``, computed when the plans are built) are literals of
    which every match contains one: a text holding none of them skips the row without compiling
    or running its regex, so a command that no rule names (``true``) never imports ``re``.
    """

    __slots__ = ("rows", "compiled")

    def __init__(self, rows: list[dict]) -> None:
        self.rows = [(r["match"], r["class"], r.get("needles")) for r in rows]
        self.compiled: dict[int, object] = {}

    def _regex(self, i: int):
        rx = self.compiled.get(i)
        if rx is None:
            rx = self.compiled[i] = _compile(self.rows[i][0])
        return rx

    def first(self, text: str) -> str | None:
        """The class of the first row whose regex searches ``text`` successfully."""
        for i, (_, pclass, needles) in enumerate(self.rows):
            if needles is not None and not any(n in text for n in needles):
                continue
            if self._regex(i).search(text):
                return pclass
        return None


def _compile(pattern: str):
    """``re.compile(pattern)`` from the compiled-regex cache (``rxcache``, without importing
    ``re`` when the pattern is in it): only for a command whose text a rule's literal prefilter
    lets the regex look at."""
    from .rxcache import compile
    return compile(pattern)


_PROGRAM_PATH = (r"(^|[|;&(]\s*)((?:[A-Za-z_]\w*=\S*\s+)*)[^\s|;&()<>'\"]*/"
                 r"(?=[^\s/|;&()<>'\"]+(?:\s|$))")


def program_basenames(command: str) -> str:
    """``command`` with the directory dropped from each program word (the first word of the line
    and of every part after ``|``, ``;``, ``&`` or ``(``, past ``NAME=value`` assignments)."""
    if "/" not in command:
        return command
    return _compile(_PROGRAM_PATH).sub(r"\1\2", command)


_MEMBER = r"(?P<member>[^\s|;&<>'\"]+)"
_CONTENT_MODE_RE = (
    r"(?:^|(?<=[|;&(]))\s*(?:"
    # git show REV:path, git cat-file -p REV:path (also :path, the index)
    r"git(?:\s+-[cC]\s+\S+|\s+--\S+)*\s+(?:show|cat-file\s+-p)\s+(?:-\S+\s+)*[^\s:|;&<>]*:" + _MEMBER.replace("member", "path") +
    # unzip -p / -c ARCHIVE [MEMBER...]: the last member names the content
    r"|unzip\s+(?:-\S+\s+)*?-[a-zA-Z]*[pc][a-zA-Z]*\s+(?:-\S+\s+)*\S+(?:\s+[^\s|;&<>-]\S*)*?(?:\s+"
    + _MEMBER + r")?"
    # tar -xO / --to-stdout ... [MEMBER]
    r"|tar\s+(?=[^|;&]*(?:(?<!\S)-?[a-zA-Z]*(?:x[a-zA-Z]*O|O[a-zA-Z]*x)|(?<!\S)-O\b|--to-stdout))"
    r"(?:[^\s|;&<>]+\s+)*?" + _MEMBER.replace("member", "last") +
    # zcat / gunzip -c FILE.gz: the file without its compression suffix
    r"|(?:zcat|gzcat|bzcat|xzcat|zstdcat|(?:gunzip|gzip|bzip2|xz|zstd)\s+(?:-\S+\s+)*-[a-zA-Z]*c[a-zA-Z]*)"
    r"\s+(?:-\S+\s+)*(?P<packed>[^\s|;&<>'\"]+?)\.(?:gz|bz2|xz|zst)"
    r")(?=\s*(?:$|[|;&)]))")
"""Commands that print a file's content from an archive, a revision or a compressed file."""
_ARCHIVE_RE = r"\.(?:tar|tgz|tbz2?|txz|tzst|zip|whl|jar|gz|bz2|xz|zst)$"
_CONTENT_WORDS = ("git", "unzip", "tar", "cat", "gunzip", "gzip", "bzip2", "xz", "zstd")
"""Every content mode names one of these programs: without one, no regex (nor ``re``) is needed."""
_COMPILED: dict = {}


def _content_mode(command: str):
    """The content-mode match of ``command``, or ``None`` (``re`` imported only when a content
    program is named at all: start-up of ``run -- true`` stays free of it)."""
    if not any(w in command for w in _CONTENT_WORDS):
        return None
    if not _COMPILED:
        _COMPILED["mode"], _COMPILED["archive"] = _compile(_CONTENT_MODE_RE), _compile(_ARCHIVE_RE)
    return _COMPILED["mode"].search(command)


def content_member(command: str) -> str | None:
    """The file a content mode prints (``git show HEAD:README.md`` → ``README.md``, ``unzip -p
    x.zip data.csv`` → ``data.csv``, ``tar -xOf x.tgz pkg/a.py``, ``zcat a.csv.gz`` → ``a.csv``);
    ``""`` for a content mode whose file is not named; ``None`` when ``command`` is none."""
    m = _content_mode(command)
    if m is None:
        return None
    name = m["path"] or m["member"] or m["packed"] or m["last"] or ""
    return "" if _COMPILED["archive"].search(name) or name.startswith("-") else name


def as_file_read(command: str) -> str:
    """``command`` with a content mode written as the ``cat`` of the file it prints, so the
    content reaches its own class's graph (CSV, markdown, code), not the archiver's or git's."""
    m = _content_mode(command)
    if m is None:
        return command
    name = content_member(command)
    lead = m.group(0)[:len(m.group(0)) - len(m.group(0).lstrip())]
    return command[:m.start()] + lead + (f"cat {name}" if name else "cat -") + command[m.end():]


def plans_cache_path(cwd: str | None = None) -> str:
    """Where the compiled plans for the graph and filter files visible from ``cwd`` are cached."""
    return os.path.join(cache_dir(), f"plans-{_key(_key_files(cwd))}.marshal")


def load_plans(cwd: str | None = None, *, use_cache: bool = True) -> Plans:
    """Compiled plans for the graphs visible from ``cwd``, from the cache when it is fresh."""
    path = plans_cache_path(cwd)
    plans = None
    if use_cache:
        blob = read_cache(path)
        if blob is not None:
            try:
                plans = Plans(marshal.loads(blob))
            except (ValueError, EOFError, TypeError, KeyError):
                pass
    if plans is not None and _moved(plans.stamps):
        plans = None  # a user stage's module or an installed distribution changed: rebuild
    if plans is None:
        rx = sys.modules.get(__package__ + ".rxcache")
        if rx is not None:
            rx.skip_save()
        from .build import build_all, warm_filters  # control plane: pydantic, yaml, networkx
        usable, untrusted = trusted_only(discover(cwd))
        data = build_all(usable)
        data["untrusted"] = untrusted
        if use_cache:
            _write_atomic(path, marshal.dumps(_packed(data)))
        warm_filters(cwd)
        plans = Plans(data)
    if plans.untrusted:
        from .trust import warn_untrusted
        warn_untrusted("graphs", plans.untrusted)
    return plans


def _moved(stamps: dict[str, str]) -> bool:
    """True when a file or folder a cached plan depends on (user stages, see
    ``thresher.stages.plugins``) no longer has the size and mtime recorded at build time."""
    return any(file_stamp(path) != stamp for path, stamp in stamps.items())


def read_cache(path: str) -> bytes | None:
    """The bytes of cache file ``path``, or ``None`` when it is missing or not trustworthy.

    A cached plan names ``module:attr`` stages that get imported, so whoever can write the file
    can run code as us: a file that is not a regular file we own, or that others can write, is
    refused (the caller rebuilds it, and :func:`_write_atomic` replaces it with a private one).
    """
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def _private_dir(folder: str) -> None:
    """Create ``folder`` 0700, or make an existing one of ours 0700."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    st = os.stat(folder)
    if st.st_uid == os.getuid() and st.st_mode & 0o077:
        os.chmod(folder, 0o700)


def _write_atomic(path: str, blob: bytes) -> None:
    """Write ``blob`` to ``path`` atomically, 0600 in a 0700 folder (whatever the umask); a cache
    that cannot be written is not an error."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        _private_dir(os.path.dirname(path))
        try:
            os.unlink(tmp)  # a leftover of an interrupted write by a process with our pid
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(blob)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
