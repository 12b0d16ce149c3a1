"""Capture ps, env/printenv and curl/wget fixtures by running the real tools on this machine.

- ps runs inside a fresh PID namespace (``unshare --pid --fork --mount-proc``, needs root) in which
  the script starts the processes it lists, so no command line of the host (which may carry
  credentials) ever reaches a fixture. One case has 150 workers and a zombie.
- env/printenv run under ``env -i`` with an environment built here: ordinary variables, the real
  ``dircolors -b`` LS_COLORS, and FAKE secrets made up for the test (never the host's environment).
- curl/wget talk to a ``python -m http.server`` this script starts on 127.0.0.1 (no other host).

Each case is written to tests/fixtures/<id>.json in the corpus schema.
- apt-get installs (and first removes) a few small Debian packages: run it as root.

Usage: ``python benchmarks/capture_system.py`` (needs util-linux unshare, curl, wget, apt-get).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

from capture_fixtures import run, save

SRC = "benchmarks/capture_system.py"

# Made-up values, shaped like real credentials so that the masking is exercised; none is valid.
FAKE_SECRETS = {
    "API_TOKEN": "tk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
    "GITHUB_TOKEN": "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0001",
    "AWS_ACCESS_KEY_ID": "AKIAFAKEFAKEFAKE0001",
    "AWS_SECRET_ACCESS_KEY": "fakeSecretKey/0123456789abcdefghijklmnopqrst",
    "DATABASE_URL": "postgres://app:s3cr3t-pass@127.0.0.1:5432/appdb",
    "DB_PASSWORD": "hunter2",
    "OPENAI_API_KEY": "sk-fake-0123456789abcdefghijklmnopqrstuvwxyzABCD",
    "SESSION_SECRET": "c2Vzc2lvbi1zZWNyZXQtZmFrZS12YWx1ZQ==",
    "TLS_PRIVATE_KEY": "-----BEGIN PRIVATE KEY-----\nMIIBfakeFAKEfakeFAKEfakeFAKE\nZm9vYmFyZmFrZWtleQ==\n-----END PRIVATE KEY-----",
}
PLAIN = {
    "HOME": "/home/dev", "USER": "dev", "LOGNAME": "dev", "SHELL": "/bin/bash", "LANG": "C.UTF-8",
    "TERM": "xterm-256color", "PWD": "/home/dev/src/app", "EDITOR": "vim", "PAGER": "less",
    "PATH": "/home/dev/.local/bin:/usr/local/bin:/usr/bin:/bin", "NODE_ENV": "development",
    "VIRTUAL_ENV": "/home/dev/src/app/.venv", "PYTHONDONTWRITEBYTECODE": "1", "TZ": "UTC",
    "XDG_RUNTIME_DIR": "/run/user/1000", "HISTSIZE": "10000", "APP_PORT": "8080",
    "TOKENIZERS_PARALLELISM": "false", "PASSWORD_MIN_LENGTH": "12",
}


def _case(cid: str, cls: str, command: str, code: int, out: str, err: str, keep: list[str],
          note: str, verbatim: bool = False) -> None:
    keep = list(dict.fromkeys(k for k in keep if k and k in out + err))
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": verbatim, "source": f"{SRC}: {note}"})


def _lines(text: str, pattern: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if re.search(pattern, line)]


PS_SCRIPT = '''
for i in $(seq 1 {n}); do sleep $((600 + i)) & done
for i in 1 2 3; do python3 -c "import time; time.sleep(600)" worker-$i & done
sh -c 'sleep 0 & exec sleep 600' &
yes > /dev/null &
sleep 1
{ps}
'''


def ps_cases(tmp: str) -> None:
    """ps aux with 150 sleepers, a zombie and a busy loop; ps -ef --forest; a bad option."""
    for cid, n, ps in (("ps-aux-many", 150, "ps aux"), ("ps-ef-forest", 12, "ps -ef --forest"),
                       ("ps-eo-custom", 40, "ps -eo pid,ppid,stat,etime,rss,args --sort=-rss")):
        script = PS_SCRIPT.format(n=n, ps=ps)
        code, out, err = run(["unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script], tmp)
        keep = _lines(out, r"<defunct>|\byes\b|worker-2") + out.splitlines()[:1]
        _case(cid, "ps", ps, code, out, err, keep, f"{ps} in a PID namespace with {n} sleepers, a zombie")
    code, out, err = run(["ps", "--no-such-option"], tmp)
    _case("ps-bad-option", "ps", "ps --no-such-option", code, out, err, _lines(err, r"error|unknown|Usage"),
          "ps with an unknown option")


def env_cases(tmp: str) -> None:
    """env and printenv over a built environment with fake secrets and the real LS_COLORS."""
    colors = subprocess.run(["dircolors", "-b"], capture_output=True, text=True).stdout
    ls_colors = re.search(r"LS_COLORS='([^']*)'", colors)[1]
    base = dict(PLAIN, LS_COLORS=ls_colors, **FAKE_SECRETS)
    names = [k for k in sorted(base)]
    for cid, cmd in (("env-fake-secrets", ["env"]), ("env-printenv", ["printenv"])):
        code, out, err = run(["env", "-i", *[f"{k}={base[k]}" for k in names], *cmd], tmp)
        keep = [f"{k}={v}" for k, v in PLAIN.items()] + [f"{k}=" for k in FAKE_SECRETS]
        _case(cid, "env", " ".join(cmd), code, out, err, keep, "env -i with plain vars, LS_COLORS, fake secrets")
    code, out, err = run(["env", "-i", f"API_TOKEN={FAKE_SECRETS['API_TOKEN']}", "printenv", "API_TOKEN"], tmp)
    _case("env-printenv-one", "env", "printenv API_TOKEN", code, out, err, [], "printenv of one fake secret")


def _serve(root: str) -> tuple[subprocess.Popen, int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(50):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("http.server did not start")


def _site(root: str) -> None:
    os.makedirs(os.path.join(root, "docs"))
    with open(os.path.join(root, "users.json"), "w") as fh:
        json.dump({"users": [{"id": i, "name": f"user{i}", "active": i % 3 != 0} for i in range(60)]}, fh, indent=2)
    with open(os.path.join(root, "big.bin"), "wb") as fh:
        fh.write(os.urandom(48 * 1024 * 1024))
    with open(os.path.join(root, "docs", "notes.txt"), "w") as fh:
        fh.write("".join(f"note {i}: release checklist item {i}\n" for i in range(300)))


def http_cases(tmp: str) -> None:
    """curl and wget against a local http.server: JSON, a 48 MB download, 404, redirect, refused."""
    root = os.path.join(tmp, "site")
    os.makedirs(root)
    _site(root)
    proc, port = _serve(root)
    base = f"http://127.0.0.1:{port}"
    try:
        cases = (
            ("curl-json-verbose", ["curl", "-v", f"{base}/users.json"], r"^< HTTP/|^< Content-Type"),
            ("curl-download-progress", ["curl", "-o", "out.bin", f"{base}/big.bin"], r"^100 "),
            ("curl-404", ["curl", "-sS", "-i", f"{base}/missing.txt"], r"HTTP/1\.0 404|Error code: 404"),
            ("curl-redirect-follow", ["curl", "-sSvL", f"{base}/docs"], r"^< HTTP/|^< Location"),
            ("curl-fail-404", ["curl", "-fsS", f"{base}/missing.txt"], r"curl: \(22\)"),
            ("curl-text-body", ["curl", "-s", f"{base}/docs/notes.txt"], r"^note (?:0|150|299):"),
            ("wget-download", ["wget", f"{base}/big.bin", "-O", "big.bin"], r"200 OK|saved|Length:"),
            ("wget-404", ["wget", f"{base}/missing.txt"], r"404|ERROR"),
        )
        for cid, cmd, pattern in cases:
            code, out, err = run(cmd, tmp)
            _case(cid, "curl", " ".join(cmd).replace(base, "http://127.0.0.1:8000"), code, out, err,
                  _lines(out + err, pattern), "against a local python -m http.server")
    finally:
        proc.terminate()
        proc.wait()
    code, out, err = run(["curl", "-v", f"http://127.0.0.1:{port}/users.json"], tmp)
    _case("curl-refused-verbose", "curl", "curl -v http://127.0.0.1:8000/users.json", code, out, err,
          _lines(err, r"refused|Failed to connect"), "the same server, stopped")


def apt_cases(tmp: str) -> None:
    """apt-get install of small Debian packages (removed first), a missing package, apt list."""
    pkgs = ["cowsay", "fortune-mod", "fortunes-min", "figlet", "sl", "toilet", "toilet-fonts"]
    run(["apt-get", "remove", "-y", "-q", *pkgs], tmp)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    code, out, err = run(["apt-get", "install", "-y", *pkgs], tmp, env)
    _case("apt-get-install", "apt", "apt-get install -y " + " ".join(pkgs), code, out, err,
          _lines(out, r"^Setting up |^\d+ upgraded, \d+ newly installed|^The following NEW packages"),
          "apt-get install of seven small packages")
    code, out, err = run(["apt-get", "install", "-y", "thresher-no-such-package"], tmp, env)
    _case("apt-get-install-missing", "apt", "apt-get install -y thresher-no-such-package", code, out, err,
          _lines(err, r"^E: "), "apt-get install of a package that does not exist")


def main() -> None:
    """Capture every ps, env, http and apt fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        ps_cases(tmp)
        env_cases(tmp)
        http_cases(tmp)
        apt_cases(tmp)
    print("system fixtures written")


if __name__ == "__main__":
    main()
