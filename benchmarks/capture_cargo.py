"""Capture cargo fixtures by running the real cargo on a dependency-free crate written here.

Cases: a failing ``cargo test`` (60 passing tests, 2 failing, a doc test), a huge ``cargo check``
(80+ warnings, over any budget), a ``cargo build`` with type errors, ``cargo clippy`` lints and an
unusual ``cargo test -- --nocapture`` whose test output is interleaved with the rows.
Re-run with ``.venv/bin/python benchmarks/capture_cargo.py`` (needs cargo; no network).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

from capture_fixtures import save

LIB = '''//! A tiny inventory crate for fixtures.

/// Price of `n` items at `cents` each, with a bulk discount.
pub fn total(n: u32, cents: u32) -> u32 {
    let gross = n * cents;
    if n >= 10 { gross - gross / 10 } else { gross }
}

/// Parse "name=count".
///
/// ```
/// assert_eq!(inventory::parse("nuts=3"), Some(("nuts".to_string(), 3)));
/// ```
pub fn parse(s: &str) -> Option<(String, u32)> {
    let (k, v) = s.split_once('=')?;
    Some((k.trim().to_string(), v.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
%TESTS%
    #[test]
    fn bulk_discount_applies() {
        assert_eq!(total(10, 100), 950, "ten items should get 5% off");
    }

    #[test]
    fn parse_rejects_missing_count() {
        assert_eq!(parse("bolts="), Some(("bolts".to_string(), 0)));
    }
}
'''

WARNINGS = "\n".join(
    f"pub fn helper_{i}(input: u32) -> u32 {{\n    let unused_{i} = input + {i};\n"
    f"    let mut copy_{i} = input;\n    input\n}}\n" for i in range(45))

BROKEN = '''pub fn total(n: u32, cents: u64) -> u32 {
    let gross: u32 = n * cents;
    gross.checked_sub(missing_discount(gross))
}
'''

CLIPPY = '''pub fn is_empty_name(name: &String) -> bool {
    if name.len() == 0 { return true; } else { return false; }
}

pub fn first_char(s: &str) -> char {
    s.chars().next().unwrap().clone()
}
'''


def cargo(args: list[str], cwd: str) -> tuple[int, str, str]:
    """Run cargo offline and return (exit code, stdout, stderr)."""
    env = dict(os.environ, CARGO_TERM_COLOR="never", RUST_BACKTRACE="0")
    p = subprocess.run(["cargo", args[0], "--offline", *args[1:]], cwd=cwd, capture_output=True,
                       text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def crate(tmp: str, name: str, lib: str) -> str:
    """A fresh crate folder with ``lib`` as src/lib.rs."""
    path = os.path.join(tmp, name)
    os.makedirs(os.path.join(path, "src"))
    with open(os.path.join(path, "Cargo.toml"), "w") as fh:
        fh.write('[package]\nname = "inventory"\nversion = "0.1.0"\nedition = "2021"\n')
    with open(os.path.join(path, "src", "lib.rs"), "w") as fh:
        fh.write(lib)
    return path


def facts(text: str) -> list[str]:
    """Diagnostic headers, locations, failing rows, panics and result lines of a cargo run."""
    pat = re.compile(r"^(?:error|warning)(?:\[\w+\])?: |^\s+--> \S+|^test result: |^test .+ FAILED$"
                     r"|^thread '.*' panicked at |^\s+Finished ")
    return list(dict.fromkeys(line.strip() for line in text.splitlines() if pat.match(line)))


def record(cid: str, command: str, result: tuple[int, str, str], note: str) -> None:
    """Save one case."""
    code, out, err = result
    save({"id": cid, "class": "cargo", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": facts(out + "\n" + err), "verbatim": False,
          "source": f"benchmarks/capture_cargo.py: {note}"})


def main() -> None:
    """Capture every cargo fixture."""
    tests = "".join(f"\n    #[test]\n    fn total_of_{i}_items() {{\n        assert_eq!(total({i % 9}, 2), "
                    f"{(i % 9) * 2});\n    }}\n" for i in range(60))
    with tempfile.TemporaryDirectory() as tmp:
        path = crate(tmp, "ok", LIB.replace("%TESTS%", tests))
        record("cargo-own-test-fail", "cargo test", cargo(["test"], path),
               "60 passing tests, 2 failing, one doc test")
        record("cargo-own-test-nocapture", "cargo test -- --nocapture",
               cargo(["test", "--", "--nocapture"], path), "--nocapture: panics interleaved with rows")
        path = crate(tmp, "warn", WARNINGS)
        record("cargo-own-check-warnings-huge", "cargo check", cargo(["check"], path),
               "90 warnings (unused variables, needless mut): over any budget")
        path = crate(tmp, "broken", BROKEN)
        record("cargo-own-build-error", "cargo build", cargo(["build"], path),
               "type errors and an unresolved function")
        path = crate(tmp, "lint", CLIPPY)
        record("cargo-own-clippy", "cargo clippy", cargo(["clippy"], path), "clippy lints")


if __name__ == "__main__":
    main()
