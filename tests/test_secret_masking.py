"""Credentials stay masked: .env files, JSON credential keys, curl -v auth headers, and expand.

Fixtures are real outputs captured by benchmarks/capture_secrets.py (fake credentials written
there) and benchmarks/capture_system.py (env/printenv with fake secrets).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.markers import FOOTER_RE
from thresher.dataflow.plan import load_plans
from thresher.stages.lib import secrets

from .conftest import fixture_case

MASKED = re.compile(r"\[thresher: value masked, (\d+) chars\]")
# the fake credentials benchmarks/capture_secrets.py wrote into the captured files and headers
DOTENV_SECRETS = ["fakePW-0001", "sk_test_51Hfake0123456789abcdef", "tok-fake-9f8e7d6c5b4a", "fake-hunter2"]
JSON_SECRETS = ["fakePW-0002", "cs-fake-0f1e2d3c4b5a", "t0k3n-fake-value", "rt-fake-112233",
                "AIzaFakeFakeFakeFakeFakeFakeFakeFake12"]
HEADER_SECRETS = ["tok_fake_0123456789abcdef", "fake-abc123def456"]


def _seen(case: dict, stream: str = "stdout"):
    return compress(case[stream], command=case["command"], exit_code=case["exit_code"], stream=stream)


def _body(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[:-1] if lines and FOOTER_RE.match(lines[-1]) else lines


@pytest.mark.parametrize("command", ["cat .env", "head -n 20 config/.env.local", "cat prod.env",
                                     "tail .env.production"])
def test_dotenv_files_are_classified_for_masking(command):
    assert load_plans().classify(command) == "env"


@pytest.mark.parametrize("command", ["cat foo.environment", "cat .envrc.md"])
def test_other_files_are_not(command):
    assert load_plans().classify(command) != "env"


def test_a_dotenv_file_read_with_cat_is_masked_and_every_other_line_kept():
    case = fixture_case("dotenv-cat")
    res = _seen(case)
    out = res.output.decode()
    for secret in DOTENV_SECRETS:
        assert secret not in out, secret
    raw_lines = case["stdout"].splitlines()
    body = _body(out)
    assert len(body) == len(raw_lines)
    for shown, raw in zip(body, raw_lines):
        m = MASKED.search(shown)
        if m is None:
            assert shown == raw  # comments, blank lines, plain values byte-exact
            continue
        name_part = shown[:m.start()]
        assert raw.startswith(name_part) and int(m[1]) == len(raw) - len(name_part)
    assert res.emission.decision == "compressed"


def test_json_credential_values_are_masked_and_the_document_stays_json():
    case = fixture_case("json-credentials")
    out = _seen(case).output.decode()
    for secret in JSON_SECRETS:
        assert secret not in out, secret
    doc = json.loads("\n".join(_body(out)))
    raw = json.loads(case["stdout"])
    assert doc["auth"]["client_id"] == raw["auth"]["client_id"]
    assert doc["password_min_length"] == 12 and doc["features"] == raw["features"]
    assert doc["database"]["password"] == f"[thresher: value masked, {len(raw['database']['password'])} chars]"
    assert doc["auth"]["refreshToken"].startswith("[thresher: value masked")


def test_curl_verbose_auth_headers_are_masked_other_headers_kept():
    case = fixture_case("curl-auth-verbose")
    out = _seen(case, "stderr").output.decode()
    for secret in HEADER_SECRETS:
        assert secret not in out, secret
    auth = "Bearer tok_fake_0123456789abcdef"
    assert f"> Authorization: [thresher: value masked, {len(auth)} chars]" in out.splitlines()
    for kept in ("> GET /index.html HTTP/1.1", "< HTTP/1.0 200 OK", "< Content-Length: 32"):
        assert kept in out.splitlines()


def test_header_and_json_key_rules():
    assert secrets.mask_header_line("< Set-Cookie: a=b; Path=/") == "< Set-Cookie: [thresher: value masked, 11 chars]"
    assert secrets.mask_header_line("> X-Api-Key: k1") is not None
    for plain in ("< WWW-Authenticate: Basic realm=x", "< Content-Type: text/html", "> Host: x"):
        assert secrets.mask_header_line(plain) is None
    for key in ("password", "apiKey", "client-secret", "accessToken", "DB_PASSWORD"):
        assert secrets.secret_key(key), key
    for key in ("password_min_length", "tokenizer", "name", "author"):
        assert not secrets.secret_key(key), key
    assert secrets.mask_json_line('{"a": 1, "token": "x\\"y0123456", "b": "c"}') == \
        '{"a": 1, "token": "[thresher: value masked, 11 chars]", "b": "c"}'


def test_values_that_cannot_be_credentials_stay():
    """Short values, placeholders, and ordinary words under a one-word key that is also an ordinary
    word stay as written; the same keys' credential-shaped values and every value of an
    unambiguous credential key (at least four characters) are masked."""
    stays = [("token", "NX"), ("token", "KEEPTTL"), ("token", "a token of the grammar"),
             ("signature", "def f(x: int) -> str"), ("auth", "required"), ("token", "IDENTIFIER"), ("private", "yes"),
             ("password", "${DB_PASSWORD}"), ("password", "***"), ("apiKey", "<your key>"),
             ("client_secret", "{{ vault_secret }}"), ("password", "pw"), ("name", "hunter2hunter2")]
    for key, value in stays:
        assert secrets.mask_json_line(f'"{key}": "{value}",') is None, (key, value)
    masked = [("token", "tok_0123456789"), ("auth", "AbCdEfGhIjKl"), ("password", "hunter2"), ("accessToken", "abcd"),
              ("apiKey", "short key"), ("description", "ghp_" + "a" * 36)]
    for key, value in masked:
        assert secrets.mask_json_line(f'"{key}": "{value}",') == \
            f'"{key}": "[thresher: value masked, {len(value)} chars]",', (key, value)


def _expand(*args: str, tty: bool = False) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "thresher", "expand", *args]
    if not tty:
        return subprocess.run(cmd, capture_output=True, timeout=60)
    import pty
    main, sub = pty.openpty()
    try:
        proc = subprocess.run(cmd, stdout=sub, stderr=subprocess.PIPE, timeout=60)
        os.close(sub)
        sub = -1
        chunks = []
        while True:
            try:
                block = os.read(main, 65536)
            except OSError:
                break
            if not block:
                break
            chunks.append(block)
        proc.stdout = b"".join(chunks).replace(b"\r\n", b"\n")
        return proc
    finally:
        os.close(main)
        if sub >= 0:
            os.close(sub)


@pytest.mark.parametrize("cid,stream,fakes", [
    ("env-fake-secrets", "stdout", ["ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0001", "hunter2"]),
    ("env-printenv-one", "stdout", ["tk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"]),
    ("dotenv-cat", "stdout", DOTENV_SECRETS),
    ("json-credentials", "stdout", JSON_SECRETS),
    ("curl-auth-verbose", "stderr", HEADER_SECRETS)])
def test_expand_of_a_masked_payload_masks_the_same_values(cid, stream, fakes):
    case = fixture_case(cid)
    res = _seen(case, stream)
    handle = res.emission.handle
    assert handle and res.archived
    back = _expand(handle)
    assert back.returncode == 0 and b"masked as in the filtered output" in back.stderr
    for secret in fakes:
        assert secret.encode() not in back.stdout, secret
    assert back.stdout.count(b"\n") == case[stream].count("\n")  # line numbers unchanged
    assert _expand(handle, "--grep", re.escape(fakes[0])).returncode == 1  # no oracle
    refused = _expand(handle, "--unmasked")
    assert refused.returncode == 2 and refused.stdout == b"" and b"terminal" in refused.stderr


def test_expand_unmasked_at_a_terminal_is_the_original():
    case = fixture_case("dotenv-cat")
    handle = _seen(case).emission.handle
    shown = _expand(handle, "--unmasked", tty=True)
    assert shown.returncode == 0 and shown.stdout == case["stdout"].encode()


def test_expand_of_a_payload_without_secrets_is_byte_exact():
    case = fixture_case("curl-json-verbose")
    res = _seen(case, "stderr")
    back = _expand(res.emission.handle)
    assert back.stdout == case["stderr"].encode() and back.stderr == b""


@pytest.fixture()
def http_server(tmp_path):
    """A python -m http.server on 127.0.0.1 serving an empty folder; yields its port."""
    import socket
    import time
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        proc.terminate()
        proc.wait()


@pytest.mark.skipif(not os.path.exists("/usr/bin/curl"), reason="needs curl")
def test_a_failing_curl_keeps_its_errors_byte_exact_and_masks_its_auth_header(http_server):
    auth = "Bearer tok_fake_0123456789abcdef"
    cmd = ["curl", "-fsSv", "-H", f"Authorization: {auth}", f"http://127.0.0.1:{http_server}/missing"]
    raw = subprocess.run(cmd, capture_output=True)
    res = subprocess.run([sys.executable, "-m", "thresher", "run", "--", *cmd], capture_output=True,
                         timeout=60)
    assert res.returncode == raw.returncode == 22
    err = res.stderr.decode()
    assert "tok_fake_0123456789abcdef" not in err
    lines = err.splitlines()
    assert f"> Authorization: [thresher: value masked, {len(auth)} chars]" in lines
    assert "curl: (22) The requested URL returned error: 404" in lines
    m = FOOTER_RE.match(lines[-1])
    assert m is not None and m["omitted"] == "1"
    # every other line as curl wrote it (the Date header aside: a second run may tick)
    others = [ln for ln in raw.stderr.decode().splitlines() if "Authorization" not in ln]
    shown = [ln for ln in lines[:-1] if "Authorization" not in ln]
    assert [ln for ln in shown if not ln.startswith("< Date:")] == \
        [ln for ln in others if not ln.startswith("< Date:")]
    back = _expand(m["handle"])
    assert auth.encode() not in back.stdout and b"value masked" in back.stdout


def test_json_candidates_hold_every_line_mask_json_changes():
    """mask-json looks only at candidate lines: every fixture line mask_json_line changes is one,
    and so is each line of the key/value rules above."""
    lines = ['"password": "hunter2",', '"apiKey": "short key",', '"x": "ghp_' + "a" * 36 + '"',
             '"dbPwd": "abcd1234"', '"name": "plain"', '"url": "https://u:p4ss@host/x"']
    for text in _fixture_texts() + ["\n".join(lines)]:
        src = text.split("\n")
        cands = secrets.json_candidates(src)
        assert cands is not None
        for i, line in enumerate(src):
            if secrets.mask_json_line(line) is not None:
                assert i in cands, line
    assert set(secrets.json_candidates(lines)) >= {0, 1, 2, 3, 5}


def _fixture_texts() -> list[str]:
    import glob
    out = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fixtures", "*.json"))):
        with open(path, encoding="utf-8") as fh:
            case = json.load(fh)
        out.append((case.get("stdout") or "") + (case.get("stderr") or ""))
    return out
