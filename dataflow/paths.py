"""The user's home folder as every thresher path derives it: an empty ``HOME`` counts as unset.

``os.path.expanduser("~")`` returns ``""`` when ``HOME=""``, which silently put the store in
``/.local/share/thresher`` and the cache in ``/.cache/thresher``. Here an empty (or relative)
``HOME`` falls back to the password database, as an unset one does.
"""

from __future__ import annotations

import os


def home_dir() -> str:
    """``$HOME`` when it is an absolute path, else the user's home from the password database.

    Raises ``OSError`` when neither exists (callers fail open: no store, raw output).
    """
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return home
    try:
        import pwd
        entry = pwd.getpwuid(os.getuid()).pw_dir
    except (KeyError, ImportError):
        entry = ""
    if not os.path.isabs(entry or ""):
        raise OSError("no home folder: HOME is empty and the user has no password entry "
                      "(set HOME, or THRESHER_HOME / THRESHER_CACHE_HOME / THRESHER_CONFIG_HOME)")
    return entry


def under_home(*parts: str) -> str:
    """``home_dir()`` joined with ``parts`` (``under_home(".cache")``)."""
    return os.path.join(home_dir(), *parts)


def home_of(environ: "dict | None" = None) -> str:
    """The home folder for an environment mapping (``os.environ`` by default): its ``HOME`` when
    absolute, else :func:`home_dir`'s answer, else ``""`` (callers then treat paths as absent)."""
    env = os.environ if environ is None else environ
    home = env.get("HOME", "")
    if os.path.isabs(home):
        return home
    try:
        return home_dir()
    except OSError:
        return ""
