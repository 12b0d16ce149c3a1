"""A real nginx (and optionally a Python upstream) in a scratch directory, for the capture scripts.

``capture_sweep_logs.py``, ``capture_listings_unseen.py`` and ``capture_logs_unseen.py`` each serve
a site through the Debian ``nginx`` binary with their own config, drive requests at it and read the
access and error logs it wrote. What they share lives here: the scratch layout, starting the
upstream and nginx (``-p`` prefix, error log in the directory), the requests (an error status is
the point, so it is swallowed), stopping, and the rule that names each kind of failed request.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request

_FAILED = re.compile(r'"([A-Z]+ \S*) HTTP/[\d.]+" ([45]\d\d) ')


def get(url: str, agent: str | None = None, method: str = "GET") -> None:
    """One request; an error status or a refused connection is an outcome, not a failure."""
    headers = {"User-Agent": agent} if agent else {}
    try:
        urllib.request.urlopen(urllib.request.Request(url, headers=headers, method=method), timeout=5).read()
    except Exception:  # noqa: BLE001 - error statuses are the point
        pass


def failed_kinds(access_log: str) -> dict[str, str]:
    """The first line of each kind of failed request: method, path with its digits masked, and
    the 4xx/5xx status (the rest of a kind differ only in ids)."""
    kinds: dict[str, str] = {}
    for ln in access_log.splitlines():
        m = _FAILED.search(ln)
        if m:
            kinds.setdefault(re.sub(r"\d+", "#", m.group(1)) + m.group(2), ln)
    return kinds


class Site:
    """nginx serving ``d`` with ``conf`` (formatted by the caller), and ``app`` (Python source run
    with its port as the only argument) as the upstream when given. Use as a context manager:
    nginx is told to quit, and the upstream killed, on the way out."""

    def __init__(self, d: str, conf: str, app: str | None = None, app_port: int | None = None,
                 settle: float = 0.6) -> None:
        self.d, self.conf, self.settle = d, os.path.join(d, "nginx.conf"), settle
        self.upstream: subprocess.Popen | None = None
        with open(self.conf, "w") as fh:
            fh.write(conf)
        if app is not None:
            with open(os.path.join(d, "app.py"), "w") as fh:
                fh.write(app)
            self.upstream = subprocess.Popen([sys.executable, os.path.join(d, "app.py"), str(app_port)])

    def __enter__(self) -> Site:
        subprocess.run(["nginx", "-p", self.d, "-c", self.conf, "-e", os.path.join(self.d, "error.log")],
                       check=True)
        time.sleep(self.settle)
        return self

    def kill_upstream(self) -> None:
        """Stop the upstream mid-run (nginx then answers 502 and logs the refused connection)."""
        if self.upstream is not None and self.upstream.poll() is None:
            self.upstream.kill()
            self.upstream.wait()

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["nginx", "-p", self.d, "-c", self.conf, "-s", "quit"])
        time.sleep(self.settle)
        self.kill_upstream()


def scratch(tmp: str, name: str, files: dict[str, str]) -> str:
    """``tmp/name`` with ``www/`` and the given files (paths relative to it); ``tmp`` made
    world-readable, since nginx's worker runs as another user when started by root."""
    d = os.path.join(tmp, name)
    os.makedirs(os.path.join(d, "www"))
    os.chmod(tmp, 0o755)
    for rel, text in files.items():
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    return d
