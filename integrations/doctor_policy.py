"""The doctor checks of what thresher may do here, beside whether it works (:mod:`.doctor`).

Another tool rewriting the same output (the conflict probe, :mod:`.conflicts`), the standing
context thresher adds to every request against its budget or ``--gate`` (:mod:`.standing`), each
measure-first scope's progress (:mod:`.rollout`), and the kill switches set.
"""

from __future__ import annotations

from .doctor import FAIL, OK, WARN, Check

TYPE_CHECKING = False  # (typing.TYPE_CHECKING without importing typing: a start-up cost)
if TYPE_CHECKING:
    from collections.abc import Mapping


def check_conflicts(project: str, environ: Mapping[str, str]) -> Check:
    """No other tool rewrites the agent's output too (RTK, lean-ctx, OMNI, headroom)."""
    from . import conflicts
    found = conflicts.probe(conflicts.settings_for(project, environ), environ)
    if found:
        return Check(FAIL, "conflicts", "output compressed twice: " +
                     "; ".join(c.render() for c in found),
                     "remove the other tool's hooks (the command after each `remove:`), or "
                     "uninstall thresher's: thresher init claude --uninstall")
    seen = conflicts.installed(environ.get("PATH", ""))
    return Check(OK, "conflicts", "no other output-rewriting hooks, shims or proxy" +
                 (f" (installed but not wired in: {', '.join(seen)})" if seen else ""))


def check_standing(gate: int | None) -> Check:
    """What thresher adds to every request, against ``gate`` (FAIL) or the shipped budget (WARN)."""
    from .standing import BUDGET, describe, measure
    try:
        size = measure()
    except Exception as exc:  # noqa: BLE001 - cannot measure: a gate must not pass silently
        return Check(FAIL if gate is not None else WARN, "standing context",
                     f"cannot measure: {exc!r}", "thresher mcp --tokens")
    limit = BUDGET if gate is None else gate
    what = "the gate" if gate is not None else "thresher's own budget"
    if size["total"] <= limit:
        return Check(OK, "standing context", f"{describe(size)} per request, within {what} "
                     f"of {limit}")
    return Check(FAIL if gate is not None else WARN, "standing context",
                 f"{describe(size)} per request exceed {what} of {limit}",
                 "the shipped instructions or tool schemas grew: shorten them "
                 "(integrations/mcp_server.py, integrations/snippet.py), or raise --gate")


def check_posture() -> list[Check]:
    """Each measure-first scope: measuring (how far its baseline window is) or graduated."""
    from thresher.boundary import switches
    from thresher.boundary import rollout
    try:
        items = rollout.status()
    except Exception as exc:  # noqa: BLE001
        return [Check(WARN, "measure-first", f"cannot read the posture: {exc}",
                      "check THRESHER_HOME is readable")]
    if not items:
        return [Check(OK, "measure-first", "no scope measuring first (outputs are compressed)")]
    out = []
    for item in items:
        stuck = item["state"] == "measuring" and switches.ledger_disabled()
        out.append(Check(WARN if stuck else OK, "measure-first", rollout.describe(item) + (
            "; the ledger is switched off, so nothing is measured and it cannot graduate"
            if stuck else ""), "turn the ledger back on, or: " + rollout.graduate_command(
                item["root"]) if stuck else ""))
    return out


def check_switches() -> Check:
    """Which kill switches are set (a misspelt subsystem would silently switch nothing off)."""
    from thresher.boundary import switches
    if switches.master_off():
        return Check(WARN, "switches", "THRESHER_DISABLE is set: every subsystem is off",
                     "unset THRESHER_DISABLE")
    named = switches.switched_off()
    unknown = [n for n in named if n not in switches.SUBSYSTEMS]
    if unknown:
        return Check(WARN, "switches", f"THRESHER_OFF names {', '.join(unknown)}, which is no "
                     f"subsystem", f"use any of {','.join(switches.SUBSYSTEMS)} (comma-separated)")
    if named:
        return Check(WARN, "switches", f"switched off by THRESHER_OFF: {', '.join(named)}",
                     "unset THRESHER_OFF to switch them back on")
    return Check(OK, "switches", "no kill switch set (THRESHER_DISABLE, THRESHER_OFF)")
