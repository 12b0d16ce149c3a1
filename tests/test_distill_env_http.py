"""distill-env (secrets masked, names kept), distill-http (progress gone) and the ps graph (rows kept)."""

from __future__ import annotations

import re

import pytest

from thresher.dataflow.api import compress
from thresher.dataflow.executor import initial_payload
from thresher.stages.listings import distill_env
from thresher.stages.logs import distill_http

from .conftest import fixture_case, seen_by_agent

ENV = {"noise_names": ["LS_COLORS"], "noise_min_chars": 200}
MASK_RE = re.compile(r"^(?P<name>\w+)=\[thresher: value (?:masked|not shown), (?P<chars>\d+) chars(?:, (?P<n>\d+) lines)?\]$")

# The made-up secrets benchmarks/capture_system.py put in the captured environment.
FAKE = ["tk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c", "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0001",
        "AKIAFAKEFAKEFAKE0001", "fakeSecretKey/0123456789abcdefghijklmnopqrst", "s3cr3t-pass", "hunter2",
        "sk-fake-0123456789abcdefghijklmnopqrstuvwxyzABCD", "c2Vzc2lvbi1zZWNyZXQtZmFrZS12YWx1ZQ==",
        "MIIBfakeFAKEfakeFAKEfakeFAKE", "Zm9vYmFyZmFrZWtleQ=="]


def _payload(case: dict, stream: str = "stdout", command: str | None = None):
    command = case["command"] if command is None else command
    return initial_payload(case[stream].encode(), command=command, argv=tuple(command.split()),
                           exit_code=case["exit_code"])


@pytest.mark.parametrize("cid", ["env-fake-secrets", "env-printenv"])
def test_env_masks_every_secret_and_keeps_every_name(cid):
    case = fixture_case(cid)
    out = compress(case["stdout"], command=case["command"], exit_code=0).text
    for secret in FAKE:
        assert secret not in out, secret
    for fact in case["must_keep"]:
        assert fact in out, fact
    names = [m[1] for m in re.finditer(r"^(\w+)=", case["stdout"], re.M) if not m[0].startswith("Zm9v")]
    assert [m[1] for m in re.finditer(r"^(\w+)=", out, re.M)] == names


def test_masked_lines_state_exact_lengths():
    case = fixture_case("env-fake-secrets")
    view = distill_env.run(_payload(case), ENV, None)
    source = case["stdout"]
    for line, o in zip(view.lines, view.origin):
        m = MASK_RE.match(line)
        assert (m is not None) == (o < 0), line
        if m:
            start = source.index(m["name"] + "=") + len(m["name"]) + 1
            value = source[start:start + int(m["chars"])]
            rest = source[start + int(m["chars"]):]
            assert rest.startswith("\n") and "\n" not in value or m["n"], line
            assert value.count("\n") + 1 == int(m["n"] or 1)


def test_secret_names_and_values():
    assert distill_env.secret_name("GITHUB_TOKEN") and distill_env.secret_name("DB_PWD")
    assert distill_env.secret_name("STRIPE_API_KEY") and distill_env.secret_name("SMTP_PASS")
    for plain in ("PWD", "OLDPWD", "TOKENIZERS_PARALLELISM", "PASSWORD_MIN_LENGTH", "SSH_AUTH_SOCK", "KEYMAP"):
        assert not distill_env.secret_name(plain), plain
    assert distill_env.secret_value("postgres://u:pw@db:5432/x")
    assert not distill_env.secret_value("postgres://db:5432/x")


def test_printenv_of_one_secret_is_masked_end_to_end():
    case = fixture_case("env-printenv-one")
    view = distill_env.run(_payload(case), ENV, None)
    assert view.redacted
    assert view.lines == (f"API_TOKEN=[thresher: value masked, {len(case['stdout'].strip())} chars]",)
    # the masked form plus its footer costs more tokens than the short raw value, and is still
    # what the agent gets: hiding a credential outranks never-worse
    res = compress(case["stdout"], command=case["command"], exit_code=0)
    secret = case["stdout"].strip()
    assert secret not in res.text and res.emission.decision == "compressed"
    assert res.text.splitlines()[0] == view.lines[0]
    assert res.emission.tokens_out >= res.emission.tokens_in


@pytest.mark.parametrize("command, raw", [("printenv DB_PASSWORD", "hunter2\n"),
                                          ("env", "HOME=/root\nDB_PASSWORD=hunter2\n")])
def test_tiny_secrets_never_pass_raw(command, raw):
    out = compress(raw, command=command, exit_code=0).text
    assert "hunter2" not in out and "DB_PASSWORD=[thresher: value masked, 7 chars]" in out
    assert "thresher expand" in out


def test_plain_env_output_is_not_marked_redacted():
    out = compress("HOME=/root\nLANG=C.UTF-8\n", command="env", exit_code=0)
    assert out.text == "HOME=/root\nLANG=C.UTF-8\n"


@pytest.mark.parametrize("cid", ["pytest-fail-verbose", "git-status-long", "ps-aux-many"])
def test_env_declines_other_output(cid):
    assert distill_env.run(_payload(fixture_case(cid), command="env"), ENV, None) is None


def test_wget_progress_rows_dropped_and_counted():
    case = fixture_case("wget-download")
    view = distill_http.run(_payload(case, "stderr"), {}, None)
    rows = [x for x in case["stderr"].splitlines() if re.match(r"^\s*\d+K \.", x)]
    assert f"[thresher: wget: {len(rows)} wget progress rows not shown]" in view.lines
    for fact in case["must_keep"]:
        assert fact in view.lines


def test_curl_verbose_keeps_headers_and_drops_the_meter():
    case = fixture_case("curl-json-verbose")
    view = distill_http.run(_payload(case, "stderr"), {}, None)
    for line in case["stderr"].splitlines():
        if line.startswith(("< ", "> ")):
            assert line in view.lines
    assert not any("% Total" in x or "bytes data]" in x for x in view.lines)
    # the JSON body passes byte-exact
    assert compress(case["stdout"], command=case["command"], exit_code=0).output == case["stdout"].encode()


@pytest.mark.parametrize("cid", ["curl-404", "curl-text-body", "curl-redirect-follow"])
def test_curl_bodies_and_plain_headers_untouched(cid):
    case = fixture_case(cid)
    assert distill_http.run(_payload(case), {}, None) is None
    out = seen_by_agent(case)
    for fact in case["must_keep"]:
        assert fact in out, fact


def test_failing_http_keeps_the_error():
    for cid in ("curl-refused-verbose", "curl-fail-404", "wget-404"):
        case = fixture_case(cid)
        out = compress(case["stderr"], command=case["command"], exit_code=case["exit_code"], stream="stderr").text
        for fact in case["must_keep"]:
            assert fact in out, (cid, fact)


@pytest.mark.parametrize("cid", ["ps-aux-many", "ps-ef-forest", "ps-eo-custom"])
def test_ps_rows_are_kept(cid):
    case = fixture_case(cid)
    out = compress(case["stdout"], command=case["command"], exit_code=0).text
    for line in case["stdout"].splitlines():
        assert line in out, line
