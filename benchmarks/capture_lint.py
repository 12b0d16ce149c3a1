"""Capture linter and type-checker fixtures by running ruff, mypy, tsc and eslint for real.

Cases: ``ruff check`` in its full format on the source of an installed PyPI package (pluggy;
hundreds of findings, over any budget) and in the concise format (unusual: one row a finding);
``mypy`` and ``mypy --pretty`` on code written here; ``tsc --noEmit`` on TypeScript written here;
``eslint`` on JavaScript written here. Needs ruff and mypy (pip) and typescript/eslint (npm) on
PATH or in ``$LINT_TOOLS`` (folders, ``:``-separated, with ``bin/ruff``, ``bin/mypy``, ``node_modules/.bin/tsc``…).
Re-run with ``.venv/bin/python benchmarks/capture_lint.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

from capture_fixtures import save

PY = '''from typing import Optional


def parse_count(text: str) -> int:
    value = text.split("=")[1]
    return value


def first_word(text: Optional[str]) -> str:
    return text.split()[0]


class Shelf:
    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def add(self, name: str, qty: int) -> None:
        self.items[name] = self.items.get(name, "0") + qty

    def total(self) -> int:
        return sum(self.items.values()) + self.missing_bonus()
'''

TS = '''interface Item { name: string; qty: number; }

export function total(items: Item[]): number {
  return items.reduce((sum, it) => sum + it.qty, "0");
}

export function find(items: Item[], name: string): Item {
  return items.find((it) => it.nam === name);
}

declare const env: { PORT?: string };
const port: number = env.PORT || 3000;
'''

JS = '''var util = require("util");

function total(items) {
  var sum = 0;
  for (var i = 0; i < items.length; i++) {
    if (items[i].qty == null) continue;
    sum += items[i].qty;
  }
  return sum;
}

function unusedHelper(a, b) {
  let result = a + b;
  return a;
}

module.exports = { total };
'''

ESLINT_CONFIG = '''module.exports = [{
  rules: { "no-var": "error", "prefer-const": "error", "eqeqeq": "error",
           "no-unused-vars": "error" },
}];
'''


def tool(name: str) -> str | None:
    """Path of ``name`` in ``$LINT_TOOLS`` (bin/ or node_modules/.bin/) or on PATH."""
    for base in filter(None, os.environ.get("LINT_TOOLS", "").split(os.pathsep)):
        for sub in ("bin", os.path.join("node_modules", ".bin")):
            cand = os.path.join(base, sub, name)
            if os.path.exists(cand):
                return cand
    return shutil.which(name)


def sh(cmd: list[str], cwd: str) -> tuple[int, str, str]:
    """Run ``cmd`` and return (exit code, stdout, stderr)."""
    env = dict(os.environ, NO_COLOR="1", FORCE_COLOR="0", MYPY_FORCE_COLOR="0", COLUMNS="100")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def facts(text: str) -> list[str]:
    """Finding rows, locations and totals of a lint run."""
    pat = re.compile(r"^[A-Z]{1,5}\d{2,4}(?: \[\*\])? |^\s*--> |^\S+:\d+(?::\d+)?: (?:error|note): "
                     r"|^\S+\(\d+,\d+\): error |^\s+\d+:\d+\s+(?:error|warning)\s|^/\S+\.js$"
                     r"|^Found \d+ error|^\u2716 \d+ problem|^\S+:\d+:\d+: [A-Z]+\d+ ")
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if pat.match(line)))


def record(cid: str, command: str, result: tuple[int, str, str], note: str) -> None:
    """Save one case."""
    code, out, err = result
    save({"id": cid, "class": "lint", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts(out + "\n" + err), "verbatim": False,
          "source": f"benchmarks/capture_lint.py: {note}"})


def ruff_cases(tmp: str) -> None:
    """ruff on pluggy's source (copied into ``tmp`` so paths are short and stable)."""
    import pluggy
    src = os.path.join(tmp, "pluggy")
    shutil.copytree(os.path.dirname(pluggy.__file__), src, ignore=shutil.ignore_patterns("__pycache__"))
    ruff = tool("ruff")
    record("lint-own-ruff-full", "ruff check --select ALL pluggy",
           sh([ruff, "check", "--no-cache", "--isolated", "--select", "ALL", "pluggy"], tmp),
           "ruff (every rule) on the pluggy package from PyPI: hundreds of findings")
    record("lint-own-ruff-concise", "ruff check --select D,ANN,SIM,RET --output-format concise pluggy",
           sh([ruff, "check", "--no-cache", "--isolated", "--select", "D,ANN,SIM,RET",
               "--output-format", "concise", "pluggy"], tmp), "ruff concise format (one row a finding)")


def main() -> None:
    """Capture every lint fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        ruff_cases(tmp)
        with open(os.path.join(tmp, "shelf.py"), "w") as fh:
            fh.write(PY)
        mypy = tool("mypy")
        record("lint-own-mypy", "mypy shelf.py", sh([mypy, "--no-incremental", "shelf.py"], tmp),
               "mypy on code written here")
        record("lint-own-mypy-pretty", "mypy --pretty shelf.py",
               sh([mypy, "--no-incremental", "--pretty", "shelf.py"], tmp), "mypy --pretty snippets")
        with open(os.path.join(tmp, "items.ts"), "w") as fh:
            fh.write(TS)
        record("lint-own-tsc", "tsc --noEmit --strict items.ts",
               sh([tool("tsc"), "--noEmit", "--strict", "items.ts"], tmp),
               "tsc on TypeScript written here")
        with open(os.path.join(tmp, "total.js"), "w") as fh:
            fh.write(JS)
        with open(os.path.join(tmp, "eslint.config.js"), "w") as fh:
            fh.write(ESLINT_CONFIG)
        record("lint-own-eslint", "eslint total.js", sh([tool("eslint"), "total.js"], tmp),
               "eslint (stylish) on JavaScript written here")


if __name__ == "__main__":
    main()
