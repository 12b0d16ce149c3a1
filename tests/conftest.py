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
