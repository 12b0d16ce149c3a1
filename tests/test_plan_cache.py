"""The plan cache names stages that get imported: it is private, and a file others could have
written is refused and rebuilt."""

from __future__ import annotations

import glob
import marshal
import os
import stat
import subprocess
import sys

import pytest

from thresher.dataflow.plan import load_plans, plans_cache_path


def _mode(path: str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_cache_files_are_0600_in_a_0700_folder_even_under_umask_000():
    folder = os.environ["THRESHER_CACHE_HOME"]
    os.chmod(folder, 0o755)  # an existing folder of ours made by an older version
    code = ("import os; os.umask(0)\n"
            "from thresher.dataflow.plan import load_plans; load_plans()\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
    files = glob.glob(os.path.join(folder, "*.marshal"))
    assert files and all(_mode(f) == 0o600 for f in files)
    assert _mode(folder) == 0o700


def _planted() -> str:
    """A cache file carrying a marker the real build never produces; returns its path."""
    load_plans()
    path = plans_cache_path()
    with open(path, "rb") as fh:
        data = marshal.loads(fh.read())
    data["errors"] = ["planted by someone else"]
    with open(path, "wb") as fh:
        fh.write(marshal.dumps(data))
    return path


def test_a_cache_file_writable_by_others_is_refused_and_rebuilt_private():
    path = _planted()
    os.chmod(path, 0o600)
    assert "planted by someone else" in load_plans().errors  # ours and private: trusted
    os.chmod(path, 0o666)
    assert "planted by someone else" not in load_plans().errors
    assert _mode(path) == 0o600
    with open(path, "rb") as fh:
        assert "planted by someone else" not in marshal.loads(fh.read())["errors"]


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another user needs root")
def test_a_cache_file_owned_by_another_user_is_refused():
    path = _planted()
    os.chmod(path, 0o600)
    os.chown(path, 65534, 65534)
    assert "planted by someone else" not in load_plans().errors
    assert os.stat(path).st_uid == os.getuid()


def test_a_symlinked_cache_file_is_refused(tmp_path):
    path = _planted()
    target = tmp_path / "elsewhere.marshal"
    os.replace(path, target)
    os.symlink(target, path)
    assert "planted by someone else" not in load_plans().errors
    assert not os.path.islink(path)


def test_the_filter_cache_is_private_and_refused_when_others_can_write_it():
    from thresher.filters import runtime
    runtime.load(warn=False)
    files = glob.glob(os.path.join(os.environ["THRESHER_CACHE_HOME"], "filters-*.marshal"))
    assert files and all(_mode(f) == 0o600 for f in files)
    with open(files[0], "rb") as fh:
        data = marshal.loads(fh.read())
    data["errors"] = ["planted by someone else"]
    with open(files[0], "wb") as fh:
        fh.write(marshal.dumps(data))
    os.chmod(files[0], 0o666)
    assert "planted by someone else" not in runtime.load(warn=False).errors
