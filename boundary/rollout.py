"""Measure before mutate: a new project (or user) starts measuring, and graduates to compression.

``thresher init claude --measure-first`` records a *root* (the project folder, or ``/`` for the
user settings: everywhere) in ``$THRESHER_HOME/rollout.json``. Under a measuring root every
output still runs through the pipeline and its savings event goes to the ledger marked
*measure-only*, but the agent gets the original bytes untouched (and the exit code): the hooks
answer nothing, ``thresher run`` writes what the command wrote. ``thresher gain`` shows those
events apart, as what *would* have been saved.

Graduation rule (deterministic, from the ledger only; no clock): the root graduates once its
baseline window holds at least :data:`MIN_PAYLOADS` measured payloads from at least
:data:`MIN_FAMILIES` distinct command families (``thresher gain``'s per-command grouping:
``git status``, ``pytest``...). The payload that completes the window flips the root to
compressing, automatically; ``thresher doctor`` and ``thresher gain`` then say when it graduated
and what the window would have saved. ``thresher init claude --graduate`` graduates early. With
the ledger switched off nothing is measured, so nothing graduates by itself.

The window of a root is indexed in ``$THRESHER_HOME/rollout/<root digest>.log`` (one
``family<TAB>handle`` line per measured payload, appended atomically); graduation counts only
lines whose event is in the ledger. A window still short of families after :data:`INDEX_CAP`
payloads indexes only payloads of new families (the file stays small; the ledger has them all).
``THRESHER_MEASURE_ONLY=1``/``0`` in the environment overrides the posture either way.
"""

from __future__ import annotations

import os


MIN_PAYLOADS = 40
"""Measured payloads a root's baseline window needs before it graduates."""
MIN_FAMILIES = 4
"""Distinct command families among them."""
INDEX_CAP = 2 * MIN_PAYLOADS
"""Past this many indexed payloads a window still short of families indexes only new families."""
EVERYWHERE = "/"


def _home() -> str:
    from thresher.stores.db import home
    return home()


def _state_path() -> str:
    from thresher.boundary.switches import ROLLOUT_FILE
    return os.path.join(_home(), ROLLOUT_FILE)


def load() -> dict:
    """``{root: {"since": event id, "graduated": "" | "auto" | "manual"}}`` ({} when none)."""
    import json  # (here: `measuring` runs on every payload and rarely finds a state file)
    try:
        with open(_state_path(), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    roots = data.get("roots") if isinstance(data, dict) else None
    return roots if isinstance(roots, dict) else {}


def _save(roots: dict) -> None:
    import json
    path = _state_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"roots": roots}, fh, indent=2, sort_keys=True)
    os.replace(tmp, path)


def root_of(cwd: str, roots: dict | None = None) -> str | None:
    """The innermost recorded root containing ``cwd``, or ``None``."""
    roots = load() if roots is None else roots
    cwd = os.path.abspath(cwd)
    hits = [r for r in roots if r == EVERYWHERE or cwd == r or cwd.startswith(r.rstrip("/") + "/")]
    return max(hits, key=len) if hits else None


def measuring(cwd: str) -> bool:
    """Whether outputs produced in ``cwd`` are measured only (cheap when no root was recorded)."""
    if not os.path.exists(_state_path()):
        return False
    roots = load()
    root = root_of(cwd, roots)
    return root is not None and not roots[root].get("graduated")


def _log(root: str) -> str:
    from .digest import sha256_hex
    return os.path.join(_home(), "rollout", sha256_hex(root)[:16] + ".log")


def _max_event_id() -> int:
    from thresher.stores.db import database
    return database().run(lambda c: c.execute("SELECT coalesce(max(id), 0) FROM events")
                          .fetchone()[0])


def start(root: str) -> str:
    """Record ``root`` as measuring first (idempotent); one line saying what happened."""
    roots = load()
    if root in roots:
        state = "graduated" if roots[root].get("graduated") else "measuring"
        return f"measure-first already recorded for {_name(root)} ({state})"
    roots[root] = {"since": _max_event_id(), "graduated": ""}
    _save(roots)
    return (f"measuring first in {_name(root)}: the agent gets every output untouched while "
            f"thresher records what it would have saved; compression starts by itself after "
            f"{MIN_PAYLOADS} measured payloads of {MIN_FAMILIES} command families (or now: "
            f"{graduate_command(root)})")


def graduate_command(root: str) -> str:
    """The command that graduates ``root`` now."""
    import shlex
    return "thresher init claude --graduate" + (
        "" if root == EVERYWHERE else f" --project {shlex.quote(root)}")


def graduate(root: str, how: str = "manual") -> str:
    """Switch ``root`` to compressing; one line with what its window would have saved."""
    roots = load()
    if root not in roots:
        return f"{_name(root)} was not measuring first: it compresses already"
    if roots[root].get("graduated"):
        return f"{_name(root)} graduated already"
    window = window_of(root, roots[root])
    roots[root] = {**roots[root], "graduated": how, "payloads": window["payloads"],
                   "families": window["families"], "would_save": window["would_save"]}
    _save(roots)
    return f"{_name(root)} graduated ({how}): compressing from now on; {_summary(window)}"


def forget(root: str) -> str | None:
    """Drop ``root`` and its window (``--uninstall``); a line, or ``None`` if it had none."""
    roots = load()
    if roots.pop(root, None) is None:
        return None
    _save(roots)
    try:
        os.remove(_log(root))
    except OSError:
        pass
    return f"measure-first record for {_name(root)} removed"


def note(cwd: str, family: str, handle: str) -> None:
    """Index one measured payload in ``cwd``'s window, graduating it when the rule holds."""
    try:
        roots = load()
        root = root_of(cwd, roots)
        if root is None or roots[root].get("graduated") or not handle:
            return
        path = _log(root)
        family = family.replace("\t", " ").replace("\n", " ")
        lines = _read_log(path)
        known = {f for f, _ in lines}
        if len(lines) >= INDEX_CAP and family in known:
            return  # a window that only lacks families: index only the new ones (bounded file)
        families = known | {family}
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{family}\t{handle}\n".encode())
        finally:
            os.close(fd)
        indexed = {"payloads": len(lines) + 1, "families": len(families)}
        if met(indexed) and met(window_of(root, roots[root])):
            graduate(root, "auto")
    except Exception:  # noqa: BLE001 - bookkeeping must never disturb the command
        pass


def _read_log(path: str) -> list[tuple[str, str]]:
    """The ``(family, handle)`` lines of a window's index ([] when none yet)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return [(family, handle) for family, _, handle in
                    (line.rstrip("\n").partition("\t") for line in fh)]
    except OSError:
        return []


def met(window: dict) -> bool:
    """The graduation rule."""
    return window["payloads"] >= MIN_PAYLOADS and window["families"] >= MIN_FAMILIES


def window_of(root: str, entry: dict) -> dict:
    """``root``'s baseline window as the ledger holds it: payloads, families, tokens it saves."""
    handles: dict[str, str] = {}
    for family, handle in _read_log(_log(root)):
        handles.setdefault(handle, family)
    from thresher.stores.db import database
    rows = database().run(lambda c: c.execute(
        "SELECT handle, coalesce(exact_in, tokens_in), coalesce(exact_out, tokens_out), "
        "bounce_tokens FROM events WHERE measure_only = 1 "
        "AND id > ?", (int(entry.get("since") or 0),)).fetchall()) if handles else []
    kept = [r for r in rows if r[0] in handles]
    return {"payloads": len(kept), "families": len({handles[r[0]] for r in kept}),
            "would_save": sum(r[1] - r[2] - r[3] for r in kept)}


def _summary(window: dict) -> str:
    return (f"{window['payloads']} payloads of {window['families']} command families measured, "
            f"which would have saved {window['would_save']:,} tokens")


def _name(root: str) -> str:
    return "every project (user settings)" if root == EVERYWHERE else root


def status() -> list[dict]:
    """Every recorded root: ``{"root", "state", "payloads", "families", "would_save"}``."""
    out = []
    for root, entry in sorted(load().items()):
        window = {k: entry.get(k, 0) for k in ("payloads", "families", "would_save")} \
            if entry.get("graduated") else window_of(root, entry)
        out.append({"root": root, "state": f"graduated ({entry['graduated']})"
                    if entry.get("graduated") else "measuring", **window})
    return out


def describe(item: dict) -> str:
    """One line for doctor and gain."""
    if item["state"] == "measuring":
        return (f"{_name(item['root'])}: measuring first, {item['payloads']} of {MIN_PAYLOADS} "
                f"payloads and {item['families']} of {MIN_FAMILIES} command families so far "
                f"(would have saved {item['would_save']:,} tokens)")
    return f"{_name(item['root'])}: {item['state']} after {_summary(item)}"
