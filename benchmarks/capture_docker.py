"""Capture docker fixtures by running the real docker CLI against a local daemon.

Needs a running dockerd and no registry: the base image is made here from Debian's static busybox
(``docker import``). On this kind of machine (no Docker Hub, no overlayfs) a daemon can be had with
``apt-get install -y docker.io busybox-static`` and
``dockerd --storage-driver=vfs --iptables=false --bridge=none &``. The Debian client
(``/usr/bin/docker``, 20.10) is used because it builds with BuildKit without the buildx plugin.
Each case is written to tests/fixtures/<id>.json in the corpus schema; outputs vary in ids and
timings. Usage: ``python benchmarks/capture_docker.py``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

from capture_fixtures import run, save

SRC = "benchmarks/capture_docker.py"
DOCKER = "/usr/bin/docker" if os.path.exists("/usr/bin/docker") else "docker"
BASE = "thresher-busybox:fixture"

DOCKERFILE_OK = """FROM {base}
WORKDIR /app
COPY src/ /app/src/
RUN for i in $(seq 1 60); do echo "compiling module_$i.c"; done
RUN echo "linking app" && mkdir -p /app/bin && echo ok > /app/bin/app
ENV APP_ENV=production
EXPOSE 8080
CMD ["sh", "-c", "cat /app/bin/app"]
"""

DOCKERFILE_FAIL = """FROM {base}
WORKDIR /app
COPY src/ /app/src/
RUN for i in $(seq 1 40); do echo "running migration $i"; done
RUN echo "checking config" && test -f /app/config.yml || (echo "error: /app/config.yml not found" >&2; exit 3)
RUN echo never
"""

DOCKERFILE_MISSING = """FROM {base}
COPY requirements.txt /app/
"""


def _case(cid: str, cls: str, command: str, code: int, out: str, err: str, keep: list[str], note: str) -> None:
    keep = [re.sub(r"\x1b\[[0-9;]*m", "", k) for k in keep]  # facts as the agent reads them
    keep = list(dict.fromkeys(k for k in keep if k))
    save({"id": cid, "class": cls, "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"})


def _lines(text: str, pattern: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if re.search(pattern, line)]


def _docker(*args: str, cwd: str, env: dict | None = None) -> tuple[int, str, str]:
    return run([DOCKER, *args], cwd, env)


def base_image(tmp: str) -> None:
    """Import a tiny busybox root filesystem as the base image."""
    root = os.path.join(tmp, "rootfs")
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(os.path.join(root, "tmp"))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    for tool in ("sh", "ls", "cat", "echo", "sleep", "seq", "test", "mkdir", "true", "false", "yes"):
        os.symlink("busybox", os.path.join(root, "bin", tool))
    tar = os.path.join(tmp, "rootfs.tar")
    subprocess.run(["tar", "-C", root, "-cf", tar, "."], check=True)
    subprocess.run([DOCKER, "import", tar, BASE], check=True, capture_output=True)


def _context(tmp: str, name: str, dockerfile: str) -> str:
    ctx = os.path.join(tmp, name)
    os.makedirs(os.path.join(ctx, "src"))
    for i in range(5):
        with open(os.path.join(ctx, "src", f"module_{i}.c"), "w") as fh:
            fh.write(f"int module_{i}(void) {{ return {i}; }}\n")
    with open(os.path.join(ctx, "Dockerfile"), "w") as fh:
        fh.write(dockerfile.format(base=BASE))
    return ctx


def build_cases(tmp: str) -> None:
    """BuildKit (plain progress) and classic builds: passing, failing RUN, missing COPY source."""
    ok = _context(tmp, "ok", DOCKERFILE_OK)
    fail = _context(tmp, "fail", DOCKERFILE_FAIL)
    missing = _context(tmp, "missing", DOCKERFILE_MISSING)
    bk = dict(os.environ, DOCKER_BUILDKIT="1")
    classic = dict(os.environ, DOCKER_BUILDKIT="0")
    for cid, ctx, env, flags, pattern in (
        ("docker-build-buildkit", ok, bk, ["--progress=plain", "--no-cache"], r"^#\d+ \[\d+/\d+\]|naming to|writing image"),
        ("docker-build-buildkit-fail", fail, bk, ["--progress=plain", "--no-cache"], r"error|ERROR|exit code|failed"),
        ("docker-build-classic", ok, classic, ["--no-cache"], r"^Step \d+/\d+ :|Successfully (?:built|tagged)"),
        ("docker-build-classic-fail", fail, classic, ["--no-cache"], r"error|returned a non-zero code|^Step 5/"),
        ("docker-build-missing-file", missing, bk, ["--progress=plain"], r"error|ERROR|not found|failed"),
    ):
        code, out, err = _docker("build", "--network=none", *flags, "-t", f"fixture/{cid}:latest", ".", cwd=ctx, env=env)
        _case(cid, "docker", f"docker build --network=none {' '.join(flags)} -t app .", code, out, err,
              _lines(out + err, pattern)[:12], "docker build of a Dockerfile written for the fixture")


def listing_cases(tmp: str) -> None:
    """docker ps -a over 36 containers (running, exited 0/1/137, created) and docker images."""
    for i in range(12):
        _docker("run", "-d", "--network", "none", "--name", f"web-{i}", BASE, "sleep", "600", cwd=tmp)
    for i in range(10):
        _docker("run", "--network", "none", "--name", f"job-{i}", BASE, "sh", "-c", f"exit {i % 2}", cwd=tmp)
    for i in range(8):
        _docker("create", "--network", "none", "--name", f"idle-{i}", BASE, "true", cwd=tmp)
    for i in range(6):
        _docker("run", "-d", "--network", "none", "--name", f"killed-{i}", BASE, "sleep", "600", cwd=tmp)
        _docker("kill", f"killed-{i}", cwd=tmp)
    code, out, err = _docker("ps", "-a", cwd=tmp)
    _case("docker-ps-all", "docker", "docker ps -a", code, out, err,
          _lines(out, r"Exited \((?:1|137)\)|Created|^CONTAINER ID"), "docker ps -a over 36 containers")
    for i in range(40):
        _docker("tag", BASE, f"registry.example.test/team/service-{i % 8}:v1.{i}", cwd=tmp)
    code, out, err = _docker("images", cwd=tmp)
    _case("docker-images", "docker", "docker images", code, out, err, _lines(out, r"^REPOSITORY|service-3 "),
          "docker images with 40 tags of the fixture base image")
    code, out, err = _docker("run", "--name", "crasher", "--network", "none", BASE, "sh", "-c",
                             "for i in $(seq 1 300); do echo \"2026-11-30T12:00:$((i % 60))Z INFO request $i served in $((i % 7))ms\"; done;"
                             " echo 'ERROR database connection lost: timeout after 30s' >&2; exit 1", cwd=tmp)
    code, out, err = _docker("logs", "crasher", cwd=tmp)
    _case("docker-logs-crash", "log", "docker logs crasher", code, out, err,
          _lines(out + err, r"ERROR|request (?:1|300) "), "docker logs of a container that logged 300 lines then failed")
    code, out, err = _docker("pull", "alpine:3.19", cwd=tmp)
    _case("docker-pull-offline", "docker", "docker pull alpine:3.19", code, out, err,
          _lines(out + err, r"Error|error"), "docker pull with no registry reachable")
    ids = _docker("ps", "-aq", cwd=tmp)[1].split()
    if ids:
        _docker("rm", "-f", *ids, cwd=tmp)


def main() -> None:
    """Capture every docker fixture."""
    with tempfile.TemporaryDirectory() as tmp:
        base_image(tmp)
        build_cases(tmp)
        listing_cases(tmp)
    print("docker fixtures written")


if __name__ == "__main__":
    main()
