"""Capture the credential-masking fixtures by running the real tools on files written here.

- ``curl -v`` with an ``Authorization`` and a ``Cookie`` header against a ``python -m http.server``
  this script starts on 127.0.0.1 (no other host);
- ``cat .env`` of a dotenv file and ``cat config.json`` of a JSON document with password, secret
  and token keys, both written here.
Every credential is FAKE, made up for the test (never the host's). Each case is written to
tests/fixtures/<id>.json in the corpus schema.

Usage: ``python benchmarks/capture_secrets.py`` (needs curl).
"""

from __future__ import annotations

import os
import tempfile

from capture_fixtures import run, save
from capture_system import _serve

SRC = "benchmarks/capture_secrets.py"


def _case(cid: str, cls: str, command: str, code: int, out: str, err: str, keep: list[str],
          note: str) -> None:
    keep = [k for k in keep if k in out + err]
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"})

DOTENV = """# local settings for the demo app
APP_NAME=demo
DEBUG=true
DATABASE_URL=postgres://app:fakePW-0001@localhost:5432/app
export STRIPE_SECRET_KEY="sk_test_51Hfake0123456789abcdef"
API_TOKEN='tok-fake-9f8e7d6c5b4a'
PORT=8080

REDIS_PASSWORD=fake-hunter2
PASSWORD_MIN_LENGTH=12
"""

CONFIG_JSON = """{
  "name": "demo",
  "database": {"host": "localhost", "port": 5432, "user": "app", "password": "fakePW-0002"},
  "auth": {
    "client_id": "demo-client",
    "client_secret": "cs-fake-0f1e2d3c4b5a",
    "token": "t0k3n-fake-value",
    "refreshToken": "rt-fake-112233"
  },
  "apiKey": "AIzaFakeFakeFakeFakeFakeFakeFakeFake12",
  "password_min_length": 12,
  "features": ["login", "export"]
}
"""

AUTH = "Bearer tok_fake_0123456789abcdef"
COOKIE = "session=fake-abc123def456"


def file_cases(tmp: str) -> None:
    """``cat .env`` and ``cat config.json``."""
    for name, text in ((".env", DOTENV), ("config.json", CONFIG_JSON)):
        with open(os.path.join(tmp, name), "w") as fh:
            fh.write(text)
    code, out, err = run(["cat", ".env"], tmp)
    _case("dotenv-cat", "env", "cat .env", code, out, err,
          ["APP_NAME=demo", "PORT=8080", "PASSWORD_MIN_LENGTH=12", "# local settings for the demo app"],
          "cat of a .env file with fake credentials")
    code, out, err = run(["cat", "config.json"], tmp)
    _case("json-credentials", "json", "cat config.json", code, out, err,
          ['"client_id": "demo-client"', '"password_min_length": 12'],
          "cat of a JSON config with fake password/secret/token keys")


def curl_cases(tmp: str) -> None:
    """``curl -v`` sending an Authorization and a Cookie header to a local http.server."""
    root = os.path.join(tmp, "site")
    os.makedirs(root)
    with open(os.path.join(root, "index.html"), "w") as fh:
        fh.write("<html><body>hello</body></html>\n")
    proc, port = _serve(root)
    try:
        cmd = ["curl", "-v", "-H", f"Authorization: {AUTH}", "-H", f"Cookie: {COOKIE}",
               f"http://127.0.0.1:{port}/index.html"]
        code, out, err = run(cmd, tmp)
    finally:
        proc.terminate()
        proc.wait()
    err = err.replace(f"127.0.0.1:{port}", "127.0.0.1:8000").replace(f"port {port}", "port 8000")
    _case("curl-auth-verbose", "curl",
          f"curl -v -H 'Authorization: {AUTH}' -H 'Cookie: {COOKIE}' http://127.0.0.1:8000/index.html",
          code, out, err, ["> GET /index.html HTTP/1.1", "< HTTP/1.0 200 OK", "hello"],
          "curl -v with auth headers against a local python -m http.server")


def main() -> None:
    """Write the three cases."""
    with tempfile.TemporaryDirectory() as tmp:
        file_cases(tmp)
        curl_cases(tmp)


if __name__ == "__main__":
    main()
