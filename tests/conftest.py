"""Shared test setup: every test gets its own thresher home, cache and config folders."""

from __future__ import annotations

import json
import os

import pytest

from thresher.property.corpus import iter_cases

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus")
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    """Point THRESHER_HOME / _CACHE_HOME / _CONFIG_HOME at fresh folders (never the user's)."""
    base = tmp_path_factory.mktemp("thresher-env")
    for var in ("THRESHER_HOME", "THRESHER_CACHE_HOME", "THRESHER_CONFIG_HOME"):
        path = base / var.lower()
        path.mkdir()
        monkeypatch.setenv(var, str(path))
    monkeypatch.delenv("THRESHER_ROLE", raising=False)
    return base


# The hook tests' fixtures (helpers in hook_util.py): here, so a test names them without importing
# them (an imported fixture is an unused import that its parameter then shadows).

@pytest.fixture(scope="session")
def shared_cache(tmp_path_factory):
    """One plan cache for a whole run: compiling the graphs once, not per test."""
    return str(tmp_path_factory.mktemp("hook-plan-cache"))


@pytest.fixture
def session_env(tmp_path, monkeypatch, shared_cache):
    """An empty HOME, a project (a git repository) as cwd, and the environ the hook sees."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    (home / ".claude").mkdir(parents=True)
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("THRESHER_CACHE_HOME", shared_cache)
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "THRESHER_DISABLE", "THRESHER_RAW",
                "THRESHER_MEASURE_ONLY"):
        monkeypatch.delenv(var, raising=False)
    environ = {k: v for k, v in os.environ.items()}
    return {"home": home, "proj": proj, "environ": environ}


def load_cases(folder: str) -> list[dict]:
    """Every JSON case in ``folder`` (corpus schema), sorted by id; empty when absent."""
    return sorted(iter_cases([folder]), key=lambda c: c["id"])


def fixture_case(case_id: str) -> dict:
    """One of the project's own captured fixtures."""
    with open(os.path.join(FIXTURES, case_id + ".json"), encoding="utf-8") as fh:
        return json.load(fh)


def seen_by_agent(case: dict, plans=None) -> str:
    """Both streams of ``case``, each compressed as its own payload, as the agent reads them."""
    from thresher.dataflow.api import compress
    return "".join(compress(case[s], command=case["command"] or "", exit_code=case["exit_code"],
                            stream=s, plans=plans).output.decode("utf-8", "replace")
                   for s in ("stdout", "stderr") if case[s])
