"""Helpers for the structural distiller tests: run one stage directly, or a graph with a budget."""

from __future__ import annotations

import copy
import re

from thresher.dataflow.api import compress
from thresher.dataflow.contract import Context
from thresher.dataflow.executor import initial_payload
from thresher.dataflow.markers import is_footer
from thresher.dataflow.payload import SYNTHETIC, Out
from thresher.dataflow.plan import load_plans
from thresher.stages import params as models

from .conftest import fixture_case

SUMMARY_RE = re.compile(r"^\[thresher: (?P<n>\d+) ")


def stage(module, model: str, text: str, *, command: str = "", exit_code: int | None = 0,
          max_lines: int = 60, max_tokens: int = 800, **params):
    """Run ``module.run`` on ``text`` with a small budget; the payload it returns, or ``None``."""
    payload = initial_payload(text.encode(), command=command, exit_code=exit_code)
    ctx = Context({"max_lines": max_lines, "max_tokens": max_tokens}, None, "0" * 12, "test")
    result = module.run(payload, getattr(models, model)(**params).model_dump(), ctx)
    if isinstance(result, Out):
        assert result.port == "done"
        return result.payload
    return result


def graph(gid: str, case_or_id, role: str = "default", **budget):
    """``compress`` a fixture (or case dict) through graph ``gid`` with its budget overridden."""
    case = fixture_case(case_or_id) if isinstance(case_or_id, str) else case_or_id
    plan = copy.deepcopy(load_plans().plans[gid])
    plan["budget"].update(budget)
    return compress(case["stdout"], command=case["command"], exit_code=case["exit_code"],
                    plan=plan, trace=True), case


def kept_and_summaries(view) -> tuple[list[str], list[str]]:
    """The input lines a view keeps, and its summary lines."""
    kept = [line for line, o in zip(view.lines, view.origin) if o != SYNTHETIC]
    summaries = [line for line, o in zip(view.lines, view.origin) if o == SYNTHETIC]
    return kept, summaries


def output_lines(result) -> list[str]:
    """The emitted lines without the footer (when there is one)."""
    lines = result.text.splitlines()
    return lines[:-1] if lines and is_footer(lines[-1]) else lines


_NAMED_RE = re.compile(r"\((?:lines?) ([\d, -]+?)(?: and \d+ more in lines (\d+)-(\d+))?\)\]$")


def named_source_lines(summary_lines) -> set[int]:
    """Source indices (0-based) a crushed YAML/TOML view's summary lines name as left out: each
    path's line ends ``(lines 12-13, 40-52)``, possibly ``… and N more in lines A-B)``."""
    named: set[int] = set()
    for line in summary_lines:
        m = _NAMED_RE.search(line)
        assert m, line
        for part in m.group(1).split(", "):
            a, _, b = part.partition("-")
            named.update(range(int(a) - 1, int(b or a)))
        if m.group(2):
            named.update(range(int(m.group(2)) - 1, int(m.group(3))))
    return named
