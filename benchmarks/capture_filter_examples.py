"""Capture rsync, pre-commit and ansible-playbook outputs for the example declarative filters.

Every run happens in a temporary folder on files this script writes:
- rsync copies a generated tree (-av, a dry run with --delete, --stats, and a missing source);
- pre-commit runs local ``language: system`` hooks in a fresh git repository (all passing, one
  failing with file:line findings, and one modifying files);
- ansible-playbook runs playbooks against ``localhost`` with the local connection (a clean run
  with changes, a loop over many items, and a failing task).

Each case goes to tests/fixtures/<id>.json (corpus schema). The filters in
graphs/filters/{rsync,pre-commit,ansible-playbook}.yaml embed some of these outputs as inline tests.
Usage: ``python benchmarks/capture_filter_examples.py`` (needs rsync, git, and pre-commit and
ansible-playbook on PATH or in ``$TOOL_BIN``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import textwrap

from capture_fixtures import save

SRC = "benchmarks/capture_filter_examples.py"


def tool(name: str) -> str:
    """Path of ``name`` from ``$TOOL_BIN`` or PATH."""
    cand = os.path.join(os.environ.get("TOOL_BIN", ""), name)
    return cand if os.environ.get("TOOL_BIN") and os.path.exists(cand) else (shutil.which(name) or name)


def sh(cmd: str, cwd: str, env: dict | None = None) -> tuple[int, str, str]:
    """Run a shell line; (exit code, stdout, stderr)."""
    p = subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    return p.returncode, p.stdout, p.stderr


def case(cid: str, cls: str, command: str, res: tuple[int, str, str], keep: list[str], note: str) -> None:
    """Save one case; ``keep`` facts must occur in the output."""
    code, out, err = res
    keep = [k for k in dict.fromkeys(keep) if k and k in out + err]
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"})


def _tree(root: str, dirs: int, files: int) -> None:
    for d in range(dirs):
        os.makedirs(os.path.join(root, f"pkg{d}", "sub"), exist_ok=True)
        for f in range(files):
            with open(os.path.join(root, f"pkg{d}", "sub" if f % 2 else "", f"mod{f}.py"), "w") as fh:
                fh.write(f"# module {d}.{f}\n" * (f + 1))


def rsync_cases(tmp: str) -> None:
    """rsync -av of a tree, a dry run with deletions, --stats, and a missing source."""
    _tree(os.path.join(tmp, "src"), 6, 8)
    rs = tool("rsync")
    res = sh(f"{rs} -av src/ dst/", tmp)
    case("rsync-av-tree", "rsync", "rsync -av src/ dst/", res,
         [line for line in res[1].splitlines() if line.startswith(("sent ", "total size"))],
         "rsync -av of 6 packages x 8 files")
    for d in ("pkg1", "pkg4"):
        shutil.rmtree(os.path.join(tmp, "src", d))
    with open(os.path.join(tmp, "src", "pkg0", "mod0.py"), "a") as fh:
        fh.write("# edited\n")
    res = sh(f"{rs} -avn --delete src/ dst/", tmp)
    case("rsync-dry-run-delete", "rsync", "rsync -avn --delete src/ dst/", res,
         [line for line in res[1].splitlines() if line.startswith(("deleting ", "sent ", "total size"))],
         "dry run after removing two packages and editing one file")
    res = sh(f"{rs} -a --stats src/ dst2/", tmp)
    case("rsync-stats", "rsync", "rsync -a --stats src/ dst2/", res,
         [line for line in res[1].splitlines() if line.startswith(("Number of files:", "sent "))],
         "rsync --stats summary")
    res = sh(f"{rs} -av src/ missing/ nowhere/ dst/", tmp)
    case("rsync-missing-source", "rsync", "rsync -av src/ missing/ nowhere/ dst/", res,
         [line for line in (res[1] + res[2]).splitlines() if "error" in line or "failed" in line],
         "two missing sources: exit 23 with errors on stderr")


HOOKS = """\
repos:
  - repo: local
    hooks:
      - id: no-tabs
        name: no tab characters
        entry: '\\t'
        language: pygrep
        types: [python]
      - id: no-print
        name: no print() calls
        entry: '^\\s*print\\('
        language: pygrep
        types: [python]
      - id: compile
        name: python compiles
        entry: python3 -m py_compile
        language: system
        types: [python]
      - id: yaml-ok
        name: yaml files parse
        entry: python3 -c "import sys,json; [open(f).read() for f in sys.argv[1:]]"
        language: system
        types: [yaml]
      - id: no-todo-md
        name: no TODO in docs
        entry: 'TODO'
        language: pygrep
        types: [markdown]
      - id: strip-trailing
        name: strip trailing whitespace
        entry: sed -i -e 's/[ \\t]*$//'
        language: system
        types: [text]
"""


def precommit_cases(tmp: str) -> None:
    """pre-commit run --all-files: all hooks pass, then failures, then a modifying hook."""
    repo = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(repo, "app"))
    env = {"PRE_COMMIT_HOME": os.path.join(tmp, "pc-home"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid", "NO_COLOR": "1"}
    with open(os.path.join(repo, ".pre-commit-config.yaml"), "w") as fh:
        fh.write(HOOKS)
    for i in range(12):
        with open(os.path.join(repo, "app", f"m{i}.py"), "w") as fh:
            fh.write(f"def f{i}(x):\n    return x + {i}\n")
    sh("git init -q && git add -A && git commit -qm init", repo, env)
    pc = tool("pre-commit")
    res = sh(f"{pc} run --all-files --color never", repo, env)
    case("pre-commit-all-pass", "pre-commit", "pre-commit run --all-files", res,
         [line for line in res[1].splitlines() if "Passed" in line][:3], "every local hook passes")
    with open(os.path.join(repo, "app", "m3.py"), "a") as fh:
        fh.write("print('debug')\ndef broken(:\n")
    with open(os.path.join(repo, "app", "m7.py"), "a") as fh:
        fh.write("\tprint(1)\n")
    sh("git add -A", repo, env)
    res = sh(f"{pc} run --all-files --color never", repo, env)
    case("pre-commit-failures", "pre-commit", "pre-commit run --all-files", res,
         [line for line in res[1].splitlines() if "Failed" in line or ".py:" in line
          or "SyntaxError" in line], "three hooks fail with findings")
    with open(os.path.join(repo, "app", "m3.py"), "w") as fh:
        fh.write("def f3(x):   \n    return x  \n")
    with open(os.path.join(repo, "app", "m7.py"), "w") as fh:
        fh.write("def f7(x):\n    return x\n")
    sh("git add -A", repo, env)
    res = sh(f"{pc} run --all-files --color never", repo, env)
    case("pre-commit-fixer", "pre-commit", "pre-commit run --all-files", res,
         [line for line in res[1].splitlines() if "Failed" in line or "modified" in line],
         "a hook rewrites files (exit 1, files modified)")


PLAY_OK = """\
- name: configure the workstation
  hosts: localhost
  connection: local
  gather_facts: false
  vars:
    root: "{root}"
  tasks:
    - name: make the app folders
      ansible.builtin.file:
        path: "{{{{ root }}}}/{{{{ item }}}}"
        state: directory
      loop: [etc, var, log, cache, run, lib, share, tmp, srv, opt]
    - name: write the config
      ansible.builtin.copy:
        dest: "{{{{ root }}}}/etc/app.conf"
        content: "port=8080\\n"
    - name: check the config
      ansible.builtin.command: cat {{{{ root }}}}/etc/app.conf
      changed_when: false
    - name: ping
      ansible.builtin.ping:
    - name: skip on purpose
      ansible.builtin.debug:
        msg: never shown
      when: false
"""

PLAY_FAIL = """\
- name: deploy the service
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: ping
      ansible.builtin.ping:
    - name: read the unit file
      ansible.builtin.command: cat /nonexistent/app.service
    - name: never reached
      ansible.builtin.debug:
        msg: unreachable
"""


def ansible_cases(tmp: str) -> None:
    """ansible-playbook on localhost: first run (changes), second run (ok), a failing play."""
    root = os.path.join(tmp, "root")
    env = {"ANSIBLE_NOCOLOR": "1", "ANSIBLE_NOCOWS": "1", "ANSIBLE_PYTHON_INTERPRETER": "/usr/bin/python3", "ANSIBLE_LOCALHOST_WARNING": "False",
           "ANSIBLE_INVENTORY_UNPARSED_WARNING": "False", "ANSIBLE_HOME": os.path.join(tmp, "ah"),
           "ANSIBLE_RETRY_FILES_ENABLED": "False"}
    for name, text in (("site.yml", PLAY_OK.format(root=root)), ("deploy.yml", PLAY_FAIL)):
        with open(os.path.join(tmp, name), "w") as fh:
            fh.write(textwrap.dedent(text))
    ap = tool("ansible-playbook")
    res = sh(f"{ap} -i localhost, site.yml", tmp, env)
    case("ansible-playbook-changed", "ansible", "ansible-playbook -i localhost, site.yml", res,
         [line for line in res[1].splitlines() if line.startswith(("PLAY RECAP", "localhost "))],
         "first run: folders and config created")
    res = sh(f"{ap} -i localhost, site.yml", tmp, env)
    case("ansible-playbook-idempotent", "ansible", "ansible-playbook -i localhost, site.yml", res,
         [line for line in res[1].splitlines() if line.startswith(("PLAY RECAP", "localhost "))],
         "second run: nothing changes")
    res = sh(f"{ap} -i localhost, deploy.yml", tmp, env)
    case("ansible-playbook-failed", "ansible", "ansible-playbook -i localhost, deploy.yml", res,
         [line for line in res[1].splitlines() if line.startswith(("fatal:", "PLAY RECAP", "localhost "))],
         "a task fails: cat of a missing file")


def main() -> None:
    """Capture every case (``python capture_filter_examples.py [rsync|pre-commit|ansible]``)."""
    import sys
    pick = {"rsync": rsync_cases, "pre-commit": precommit_cases, "ansible": ansible_cases}
    for fn in [pick[a] for a in sys.argv[1:]] or pick.values():
        with tempfile.TemporaryDirectory() as tmp:
            fn(tmp)


if __name__ == "__main__":
    main()
