"""An empty HOME counts as unset everywhere a path is derived from it (issue 18 §6)."""

from __future__ import annotations

import os
import pwd

from thresher.dataflow.paths import home_of
from thresher.integrations.claude_settings import user_settings
from thresher.integrations.permissions import settings_files

REAL_HOME = pwd.getpwuid(os.getuid()).pw_dir


def test_empty_or_relative_home_falls_back_to_the_password_database():
    assert home_of({"HOME": ""}) == REAL_HOME
    assert home_of({"HOME": "relative/dir"}) == REAL_HOME
    assert home_of({"HOME": "/tmp/h"}) == "/tmp/h"


def test_claude_settings_paths_never_become_relative_with_an_empty_home(tmp_path):
    env = {"HOME": "", "PATH": "/usr/bin:/bin"}
    assert user_settings(env) == os.path.join(REAL_HOME, ".claude", "settings.json")
    files = settings_files(str(tmp_path), env)
    assert os.path.join(REAL_HOME, ".claude", "settings.json") in files
    assert all(os.path.isabs(f) for f in files)
