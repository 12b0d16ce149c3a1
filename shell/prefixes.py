"""Transparent prefixes: wrappers like ``sudo``, ``uv run`` or ``docker exec`` that run another command.

They are stripped only to find the real command for the wrap decision; the rewrite keeps them as
written inside ``thresher run -- ...``. A prefix is a list of steps, matched word by word against
the command's unquoted word values (argv is what ``sudo``/``env`` see, so quoting does not matter):

- ``("lit", {...})``: one of these words;
- ``("opts", SHORT, LONG)``: any options, where the short letters in SHORT and long names in LONG
  take an argument (``--x=v`` and ``-xVALUE`` forms are understood); ``--`` ends them;
- ``("assigns",)``: any ``NAME=value`` words (``env A=1 cmd``);
- ``("pos", n)``: n positional words (``timeout DURATION``, ``docker exec CONTAINER``);
- ``("until", {...})``: everything up to and including one of these words (``kubectl exec ... --``).

User prefixes come from ``THRESHER_PREFIXES`` (comma-separated) and ``.thresher/prefixes`` (one per
line, ``#`` comments) in the nearest folder at or above the working directory, used only once
trusted (``thresher trust .thresher/prefixes``); they match literally.
"""

from __future__ import annotations

import os

Step = tuple
DOCKER_OPTS = ("opts", "Hcl", ("--host", "--context", "--config", "--log-level", "--tlscacert",
                               "--tlscert", "--tlskey"))
COMPOSE_OPTS = ("opts", "fp", ("--file", "--project-name", "--profile", "--env-file", "--ansi",
                               "--project-directory", "--progress", "--parallel"))
EXEC_OPTS = ("opts", "euw", ("--env", "--env-file", "--user", "--workdir", "--detach-keys",
                             "--index"))
RUN_OPTS = ("opts", "euwvpl", ("--env", "--env-file", "--user", "--workdir", "--volume", "--name",
                               "--publish", "--label", "--entrypoint", "--network", "--cap-add"))
KUBE_OPTS = ("opts", "ns", ("--namespace", "--context", "--kubeconfig", "--cluster", "--user",
                            "--server", "--token"))
UV_OPTS = ("opts", "pw", ("--python", "--with", "--with-editable", "--with-requirements", "--extra",
                          "--group", "--only-group", "--no-group", "--package", "--index",
                          "--default-index", "--index-url", "--extra-index-url", "--env-file",
                          "--directory", "--project", "--cache-dir", "--config-file", "--color"))
PNPM_OPTS = ("opts", "CF", ("--dir", "--filter", "--workspace-dir"))


def _lit(*words: str) -> Step:
    return ("lit", frozenset(words))


def _pos(n: int) -> Step:
    return ("pos", n)


BUILTIN: dict[str, list[list[Step]]] = {
    "sudo": [[_lit("sudo"), ("opts", "ugCDhprtTU", ("--user", "--group", "--chdir", "--host",
                                                    "--prompt", "--role", "--type",
                                                    "--close-from", "--other-user",
                                                    "--command-timeout")), ("assigns",)]],
    "env": [[_lit("env"), ("opts", "uCS", ("--unset", "--chdir", "--split-string")),
             ("assigns",)]],
    "timeout": [[_lit("timeout"), ("opts", "sk", ("--signal", "--kill-after")), _pos(1)]],
    "nice": [[_lit("nice"), ("opts", "n", ("--adjustment",))]],
    "time": [[_lit("time"), ("opts", "fo", ("--format", "--output"))]],  # /usr/bin/time
    "uv": [[_lit("uv"), UV_OPTS, _lit("run"), UV_OPTS]],
    "poetry": [[_lit("poetry"), ("opts", "CP", ("--directory", "--project")), _lit("run")]],
    "pipenv": [[_lit("pipenv"), _lit("run")]],
    "pdm": [[_lit("pdm"), ("opts", "p", ("--project",)), _lit("run")]],
    "hatch": [[_lit("hatch"), ("opts", "e", ("--env",)), _lit("run")]],
    "npx": [[_lit("npx"), ("opts", "pcw", ("--package", "--call", "--workspace"))]],
    "npm": [[_lit("npm"), _lit("exec", "x"), ("opts", "pcw", ("--package", "--call",
                                                             "--workspace"))]],
    "pnpm": [[_lit("pnpm"), PNPM_OPTS, _lit("exec", "dlx"), PNPM_OPTS]],
    "yarn": [[_lit("yarn"), _lit("exec", "dlx")]],
    "bunx": [[_lit("bunx"), ("opts", "p", ("--package",))]],
    "bun": [[_lit("bun"), _lit("x")]],
    "bundle": [[_lit("bundle"), _lit("exec")]],
    "docker": [[_lit("docker"), DOCKER_OPTS, _lit("exec"), EXEC_OPTS, _pos(1)],
               [_lit("docker"), DOCKER_OPTS, _lit("compose"), COMPOSE_OPTS, _lit("exec"),
                EXEC_OPTS, _pos(1)],
               [_lit("docker"), DOCKER_OPTS, _lit("compose"), COMPOSE_OPTS, _lit("run"),
                RUN_OPTS, _pos(1)]],
    "docker-compose": [[_lit("docker-compose"), COMPOSE_OPTS, _lit("exec"), EXEC_OPTS, _pos(1)],
                       [_lit("docker-compose"), COMPOSE_OPTS, _lit("run"), RUN_OPTS, _pos(1)]],
    "kubectl": [[_lit("kubectl"), KUBE_OPTS, _lit("exec"), ("until", frozenset({"--"}))]],
    "oc": [[_lit("oc"), KUBE_OPTS, _lit("exec"), ("until", frozenset({"--"}))]],
    "direnv": [[_lit("direnv"), _lit("exec"), _pos(1)]],
    "nix": [[_lit("nix"), _lit("develop"), ("until", frozenset({"-c", "--command"}))]],
}


def skip_options(words: list[str], i: int, short: str, long: tuple[str, ...]) -> int:
    """Index of the first non-option word at or after ``i`` (a ``--`` is consumed and stops)."""
    while i < len(words):
        w = words[i]
        if w == "--":
            return i + 1
        if w.startswith("--"):
            i += 2 if "=" not in w and w in long else 1
        elif w.startswith("-") and len(w) > 1:
            i += 1
            for j, ch in enumerate(w[1:], start=2):
                if ch in short:
                    i += 1 if j == len(w) else 0  # ``-u app``: the value is the next word
                    break
        else:
            return i
    return i


def match(steps: list[Step], words: list[str], i: int) -> int:
    """Index just after the prefix ``steps`` starting at ``words[i]``, or -1 if it does not match."""
    for step in steps:
        kind = step[0]
        if kind == "lit":
            if i >= len(words) or words[i] not in step[1]:
                return -1
            i += 1
        elif kind == "opts":
            i = skip_options(words, i, step[1], step[2])
        elif kind == "assigns":
            while i < len(words) and _assignment(words[i]):
                i += 1
        elif kind == "pos":
            i += step[1]
        else:  # until
            while i < len(words) and words[i] not in step[1]:
                i += 1
            i += 1
    return i if i <= len(words) else -1


def strip(words: list[str], user: list[list[str]]) -> tuple[int, list[str]]:
    """Index of the real command in ``words`` after all transparent prefixes, and their names.

    A prefix that would leave no command (``env`` alone lists the environment) is not one.
    """
    i, names = 0, []
    while i < len(words):
        candidates = [[_lit(w) for w in u] for u in user if u[0] == words[i]]
        for steps in BUILTIN.get(words[i], []) + candidates:
            end = match(steps, words, i)
            if i < end < len(words):
                names.append(" ".join(words[i:end]))
                i = end
                break
        else:
            return i, names
    return i, names


def user_prefixes(cwd: str | None = None) -> list[list[str]]:
    """The user-configured prefixes (env ``THRESHER_PREFIXES`` and ``.thresher/prefixes``)."""
    found = [p.split() for p in os.environ.get("THRESHER_PREFIXES", "").split(",")]
    path = _nearest(cwd or os.getcwd())
    if path:
        # a repository's prefixes change which command the wrap decision judges: trusted only
        from thresher.dataflow.trust import read_trusted, warn_untrusted
        data, digest = read_trusted(path)
        if data is None and digest:
            warn_untrusted("prefixes", [(path, digest)])
        elif data is not None:
            text = data.decode("utf-8", "replace")
            found += [line.split("#", 1)[0].split() for line in text.splitlines()]
    return [p for p in found if p]


def _nearest(folder: str) -> str | None:
    """``.thresher/prefixes`` in ``folder`` or the nearest folder above it, if any."""
    while True:
        path = os.path.join(folder, ".thresher", "prefixes")
        if os.path.isfile(path):
            return path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _assignment(word: str) -> bool:
    """``NAME=value`` as ``env`` and ``sudo`` understand it."""
    name, eq, _ = word.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()
