"""Hypothesis settings profiles for the property checks: ``dev`` (fast) and ``ci`` (thorough, reproducible).

Choose one with ``THRESHER_HYPOTHESIS_PROFILE`` (the CI script sets ``ci``) or ``--profile`` of
``thresher check``. ``ci`` is derandomized: the same code finds the same examples on every run, so a
red build can be reproduced locally with ``THRESHER_HYPOTHESIS_PROFILE=ci``.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, Verbosity, settings

ENV = "THRESHER_HYPOTHESIS_PROFILE"
DEFAULT = "dev"

# Inputs are deliberately large (100 KB lines, hundreds of lines) and a few INV-5 examples sleep
# past a stage budget on purpose, so Hypothesis' "too slow / too large" health checks do not apply.
_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example,
             HealthCheck.function_scoped_fixture]

PROFILES: dict[str, dict] = {
    "dev": dict(max_examples=20, deadline=5000, suppress_health_check=_SUPPRESS),
    "ci": dict(max_examples=100, deadline=None, derandomize=True, database=None,
               suppress_health_check=_SUPPRESS, print_blob=True),
}


SUITE_EXAMPLES = {"dev": 300, "ci": 1000}
"""Examples per invariant over *all* shipped graphs: the test suite divides them among the graphs
(at least ``MIN_EXAMPLES`` each), so adding graphs does not make CI slower (ci: ~3 min on 2 cores)."""
MIN_EXAMPLES = 5


def suite_examples(n_graphs: int, name: str | None = None) -> int:
    """Examples per graph and invariant for a suite of ``n_graphs`` graphs under profile ``name``."""
    return max(MIN_EXAMPLES, SUITE_EXAMPLES[profile_name(name)] // max(n_graphs, 1))


def register() -> None:
    """Register the ``dev`` and ``ci`` profiles with Hypothesis (idempotent)."""
    for name, kwargs in PROFILES.items():
        settings.register_profile(name, **kwargs)


def profile_name(name: str | None = None) -> str:
    """``name``, else ``$THRESHER_HYPOTHESIS_PROFILE``, else ``dev``; ValueError when unknown."""
    name = name or os.environ.get(ENV) or DEFAULT
    if name not in PROFILES:
        raise ValueError(f"unknown hypothesis profile {name!r} (known: {', '.join(PROFILES)})")
    return name


def get(name: str | None = None, **overrides: Any) -> settings:
    """The settings of profile ``name`` (see :func:`profile_name`) with ``overrides`` applied."""
    register()
    base = settings.get_profile(profile_name(name))
    return settings(base, **overrides) if overrides else base


def load(name: str | None = None) -> str:
    """Make profile ``name`` (or the one from the environment) Hypothesis' default; return its name."""
    register()
    chosen = profile_name(name)
    settings.load_profile(chosen)
    return chosen


QUIET = Verbosity.quiet
"""Verbosity the runner uses: it reports failures itself."""
