"""The apt graph: download/unpack progress goes, every "Setting up" line and error stays, listings pass."""

from __future__ import annotations

import os

import pytest

from thresher.dataflow.api import compress

from .conftest import CORPUS, fixture_case, load_cases


def test_apt_get_install_keeps_setting_up_lines_and_counts():
    case = fixture_case("apt-get-install")
    res = compress(case["stdout"], command=case["command"], exit_code=0)
    out = res.text
    src = case["stdout"].splitlines()
    for line in src:
        if line.startswith(("Setting up ", "The following NEW", "  ")) or " newly installed" in line:
            assert line in out, line
        if line.startswith(("Get:", "Unpacking ", "Preparing to unpack ", "(Reading database")):
            assert line not in out.splitlines(), line
    assert res.emission.decision == "compressed" and res.emission.total == len(src)


def test_apt_get_missing_package_passes_whole():
    case = fixture_case("apt-get-install-missing")
    assert "E: Unable to locate package thresher-no-such-package" in case["stderr"]
    res = compress(case["stdout"], command=case["command"], exit_code=case["exit_code"])
    assert res.output == case["stdout"].encode()


def _apt_list() -> list[dict]:
    return [c for c in load_cases(os.path.join(CORPUS, "public")) if c["id"] == "apt-list-installed"]


@pytest.mark.skipif(not _apt_list(), reason="shared corpus not present")
def test_apt_list_rows_pass_whole():
    case = _apt_list()[0]
    res = compress(case["stdout"], command=case["command"], exit_code=0)
    assert res.output == case["stdout"].encode()
