"""The data table behind ``thresher rewrite``: which real commands are worth running through thresher.

Plain Python data (no YAML): it is read on every agent command, and importing a YAML parser
would cost more than the whole rewrite. An entry is a dict; all keys are optional:

- ``sub``: subcommand -> entry; only these subcommands are wrapped (``"*"``: any other word).
- ``gopts``: (short letters, long names) of options taking a value before the subcommand.
- ``never``: flag -> reason not to wrap (watch/follow modes, interactive use, no output).
- ``need``: flags of which one must be present to wrap, and ``need_why`` the reason otherwise.
- ``structured``: extra flags whose output a program parses (see ``STRUCTURED`` for the generic
  ones); such output passes byte-exact anyway, so wrapping it would only add start-up time.
- ``no``: a reason never to wrap this (sub)command (``npm start`` is a dev server).
- ``bare``: with no arguments at all: ``True`` to wrap, or the reason not to.
- ``script``: the positional words are script/target names: dev-server names are not wrapped.
- ``self_script``: the subcommand word itself is a script name (``pnpm dev``, ``yarn build``).
- ``module``: (python) ``-m MODULE`` -> entry.
- ``vletters``: short options taking a value, so a cluster stops there (``-owide`` has no ``-w``).

A flag written ``-x`` matches the letter x inside any short-option cluster (``-fn20``); a longer
single-dash flag (``-print0``, ``-json``) or a ``--long`` flag matches exactly (or ``--long=...``);
a word without a dash matches a positional word exactly (``bootRun``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this module is on the hook's path, which never imports typing
if TYPE_CHECKING:
    from typing import TypedDict

    class Entry(TypedDict, total=False):
        """One entry of :data:`TABLE` (the keys above)."""

        sub: dict[str, Entry]
        gopts: tuple[str, tuple[str, ...]]
        never: dict[str, str]
        need: tuple[str, ...]
        need_why: str
        structured: tuple[str, ...]
        no: str
        bare: bool | str
        script: bool
        self_script: bool
        module: dict[str, Entry]
        vletters: str

ANY: Entry = {}
FOLLOW = {"-f": "follows output until stopped", "--follow": "follows output until stopped"}
WATCH_W = {"-w": "watch mode never exits"}
DEV: Entry = {"no": "starts a dev server that runs until stopped"}
SCRIPT: Entry = {"script": True}
SELF_SCRIPT: Entry = {"self_script": True}
DEV_NAMES = frozenset({"dev", "start", "serve", "server", "watch", "preview", "storybook",
                       "develop", "bootrun"})

# Shell builtins and trivial commands: short or no output, never worth a process of ours.
BUILTINS = frozenset("""
cd echo printf export set unset source . alias unalias true false pwd exit return read test [ [[
sleep which type command hash mkdir touch rm rmdir mv cp ln chmod chown chgrp kill wait exec eval
shift trap local declare typeset readonly let builtin umask ulimit jobs fg bg disown pushd popd
dirs history : basename dirname realpath readlink date whoami hostname uname id clear
""".split())

# Full-screen or conversational programs: their output is not a log to compress.
INTERACTIVE = frozenset("""
vim vi nvim nano emacs pico less more most top htop btop atop ssh mosh telnet ftp sftp tmux
screen watch man fzf tig lazygit ranger nnn mc ipython bpython ptpython irb pry gdb lldb
""".split())
# Interactive only when run with no arguments at all (a REPL).
INTERACTIVE_BARE = frozenset("""
python node deno ruby psql mysql sqlite3 bash sh zsh fish lua R ghci julia redis-cli mongosh php
""".split())

# Generic flags meaning "a program will parse this" (values checked in policy.structured).
# One JSON/YAML document (`--json`, `-o json`, `--format=yaml`) is not here: printed for the
# agent's terminal it is a read that thresher crushes over budget (issue 16), so it is wrapped.
STRUCTURED = ("-json", "--porcelain", "--print0", "-print0", "--null-data")
STRUCTURED_VALUE_FLAGS = ("-o", "--output", "--output-format", "--reporter", "--message-format",
                          "--out-format", "--format")
DOCUMENT_VALUE_FLAGS = ("-o", "--output", "--output-format", "--format")
DOCUMENT_VALUES = ("json", "yaml")
"""A document format after one of these flags is a read, not a reason to leave the command alone;
a ``--format`` of anything else (``--format=%H``, a template) is still structured."""
STRUCTURED_VALUES = ("json", "yaml", "jsonpath", "go-template", "template", "name", "ndjson",
                     "sarif", "junit", "xml", "csv", "tsv", "short-json")
WATCH = ("--watch", "--watchAll", "--watch-only", "--watchAll=true")

GIT_SUBS = ("status diff log show branch blame grep push pull fetch clone shortlog reflog ls-files "
            "merge cherry-pick range-diff whatchanged describe").split()
GIT: Entry = {"gopts": ("Cc", ("--git-dir", "--work-tree", "--namespace", "--config-env")),
       "structured": ("-z", "--pretty=format:", "--pretty=tformat:"),
       "sub": {**{s: ANY for s in GIT_SUBS},
               "rebase": {"never": {"-i": "opens an editor", "--interactive": "opens an editor"}},
               "stash": {"sub": {"list": ANY, "show": ANY}},
               "remote": {"sub": {"show": ANY}},
               "submodule": {"sub": {"status": ANY, "update": ANY}}}}

PIP: Entry = {"sub": {s: ANY for s in "install uninstall list freeze show check download wheel inspect"
                                .split()}}
PY_MODULES: dict[str, Entry] = {"pytest": {"never": {"--pdb": "opens a debugger", "--trace": "opens a debugger"}},
              "unittest": ANY, "pip": PIP, "mypy": ANY, "tox": ANY, "nox": ANY, "ruff": ANY,
              "black": ANY, "pylint": ANY, "flake8": ANY, "build": ANY, "coverage": ANY,
              "pyright": ANY, "isort": ANY, "compileall": ANY}

NODE_PM: Entry = {"gopts": ("CFw", ("--prefix", "--dir", "--filter", "--workspace", "--cwd")),
           "sub": {**{s: ANY for s in "install i ci add remove uninstall test t ls list "
                                     "audit outdated why pack view info show".split()},
                   "run": SCRIPT, "run-script": SCRIPT, "start": DEV, "dev": DEV, "serve": DEV}}
PNPM: Entry = {**NODE_PM, "sub": {**NODE_PM["sub"], "*": SELF_SCRIPT}, "bare": True}
NPM: Entry = {**NODE_PM, "sub": {**NODE_PM["sub"], "build": ANY}}

COMPOSE: Entry = {"gopts": ("fp", ("--file", "--project-name", "--profile", "--env-file", "--ansi",
                            "--project-directory", "--progress", "--parallel")),
           "sub": {**{s: ANY for s in "build ps pull push down images config top ls".split()},
                   "logs": {"never": FOLLOW, "vletters": "n"},
                   "up": {"need": ("-d", "--detach", "--wait"),
                          "need_why": "runs in the foreground until stopped"}}}
DOCKER: Entry = {"gopts": ("Hcl", ("--host", "--context", "--config", "--log-level")),
          "sub": {**{s: ANY for s in "ps images build pull push history".split()},
                  "logs": {"never": FOLLOW, "vletters": "n"}, "compose": COMPOSE,
                  "stats": {"need": ("--no-stream",), "need_why": "streams until stopped"},
                  "inspect": ANY,
                  "image": {"sub": {s: ANY for s in "ls build pull push history inspect".split()}},
                  "container": {"sub": {"ls": ANY, "logs": {"never": FOLLOW}}},
                  "buildx": {"sub": {"build": ANY}}, "system": {"sub": {"df": ANY}},
                  "network": {"sub": {"ls": ANY}}, "volume": {"sub": {"ls": ANY}}}}

KUBE_WATCH = {"-w": "watches until stopped", "--watch": "watches until stopped"}
KUBE: Entry = {"gopts": ("ns", ("--namespace", "--context", "--kubeconfig", "--cluster", "--user",
                         "--server", "--token")),
        "sub": {"get": {"never": KUBE_WATCH, "vletters": "olnLcf"}, "describe": ANY,
                "logs": {"never": FOLLOW, "vletters": "lnc"}, "top": ANY,
                "events": {"never": KUBE_WATCH, "vletters": "olnLcf"}, "api-resources": ANY, "apply": ANY,
                "diff": ANY, "rollout": {"sub": {"status": ANY, "history": ANY}}}}

TERRAFORM: Entry = {"sub": {**{s: ANY for s in "init plan apply destroy validate show providers".split()},
                     "state": {"sub": {"list": ANY, "show": ANY}}}}

JVM: Entry = {"never": {"--continuous": "rebuilds until stopped", "-t": "rebuilds until stopped",
                 "bootRun": "starts a server", "spring-boot:run": "starts a server",
                 "run": "starts the application"}, "vletters": "xpDPIfbslT"}

QUIET: Entry = {"never": {"-q": "prints nothing", "--quiet": "prints nothing",
                   "--silent": "prints nothing"}, "vletters": "efmABCgtjTM"}

TABLE: dict[str, Entry] = {
    "git": GIT,
    "pytest": PY_MODULES["pytest"], "tox": ANY, "nox": ANY,
    "python": {"module": PY_MODULES, "bare": "interactive"},
    "coverage": {"sub": {"run": ANY, "report": ANY}},
    "cargo": {"sub": {**{s: ANY for s in "build b test t check c clippy run r doc bench tree "
                                         "update install audit".split()},
                      "nextest": {"sub": {"run": ANY}}}},
    "go": {"gopts": ("C", ()), "sub": {**{s: ANY for s in "test build vet list install".split()},
                                       "mod": {"sub": {"tidy": ANY, "download": ANY}}}},
    "npm": NPM, "pnpm": PNPM, "yarn": PNPM,
    "bun": {"sub": {**{s: ANY for s in "install i add remove test build".split()},
                    "run": SCRIPT, "dev": DEV, "*": SELF_SCRIPT}},
    "pip": PIP,
    "uv": {"sub": {"pip": {"sub": {s: ANY for s in "install uninstall list freeze show sync "
                                                   "compile tree check".split()}},
                   **{s: ANY for s in "sync lock add remove tree build".split()}}},
    "poetry": {"sub": {s: ANY for s in "install update add remove lock show build check".split()}},
    "pipenv": {"sub": {s: ANY for s in "install sync lock graph".split()}},
    "pdm": {"sub": {s: ANY for s in "install sync add update lock list".split()}},
    "hatch": {"sub": {"test": ANY, "build": ANY}},
    "tsc": {"never": WATCH_W, "vletters": "p"},
    **{name: ANY for name in "eslint ruff mypy dmypy pyright basedpyright black isort flake8 "
                             "pylint prettier biome shellcheck cmake ninja gcc g++ clang clang++ "
                             "cc c++ rustc javac tree du df ps printenv env find diff curl wget "
                             "cat head rspec phpunit jest jq yq".split()},
    "vitest": {"bare": True, "sub": {"run": ANY, "related": ANY, "bench": ANY,
                                     "watch": {"no": "watch mode never exits"},
                                     "dev": {"no": "watch mode never exits"}, "*": ANY}},
    "mocha": {"never": WATCH_W, "vletters": "gtrR"},
    "make": {"script": True, "gopts": ("CfIoW", ("--directory", "--file", "--makefile"))},
    "meson": {"sub": {"setup": ANY, "compile": ANY, "test": ANY}},
    "docker": DOCKER, "docker-compose": COMPOSE,
    "kubectl": KUBE, "oc": KUBE,
    "helm": {"gopts": ("n", ("--namespace", "--kube-context", "--kubeconfig")),
             "sub": {**{s: ANY for s in "list ls status history lint template install upgrade "
                                        "search".split()},
                     "dependency": {"sub": {"update": ANY, "build": ANY, "list": ANY}}}},
    "terraform": TERRAFORM, "tofu": TERRAFORM,
    **{name: QUIET for name in ("grep", "egrep", "fgrep", "rg", "ag", "ack")},
    "ls": {"need": ("-l", "-R", "--recursive"), "vletters": "IwT",
           "need_why": "a short listing: the names are the answer"},
    "tail": {"never": {**FOLLOW, "-F": "follows output until stopped"}, "vletters": "nc"},
    "journalctl": {"never": FOLLOW, "vletters": "unptoSUDM"},
    "dmesg": {"never": {"-w": "follows output until stopped", "-W": "follows output until stopped",
                        "--follow": "follows output until stopped"}, "vletters": "lfFsn"},
    "psql": {"need": ("-c", "-f", "--command", "--file", "-l", "--list"),
             "need_why": "interactive without -c/-f", "vletters": "hUdpvPFRTo"},
    "mysql": {"need": ("-e", "--execute"), "need_why": "interactive without -e",
              "vletters": "uphDPS"},
    "mvn": JVM, "mvnw": JVM, "gradle": JVM, "gradlew": JVM,
    "dotnet": {"sub": {s: ANY for s in "build test restore publish pack".split()}},
    "bundle": {"sub": {"install": ANY, "update": ANY}},
    "pre-commit": {"sub": {"run": ANY}},
}

# Other spellings of the same tool.
ALIASES = {"py.test": "pytest", "pip3": "pip", "python3": "python", "nodejs": "node",
           "podman": "docker", "podman-compose": "docker-compose", "ggrep": "grep"}
