"""Capture kubectl fixtures: the real kubectl against a stub API server on 127.0.0.1.

No Kubernetes API server can be installed on this kind of machine, so this script serves a small
stand-in: API discovery for pods and events, pod objects written here (running, crash-looping,
pending, image-pull failures, OOM-killed, completed, terminating), and — since current kubectl
leaves ``get`` tables to the server — ``meta.k8s.io/v1`` Table responses whose cells the stub
computes from those pods the way the API server's pod printer does (READY n/m, the waiting or
terminated reason as STATUS, ``RESTARTS`` with ``(Xm ago)``, a short AGE). Column layout, widths,
``-A``/``-o wide`` handling and all of ``describe`` are kubectl's own output. One case is kubectl
with no server at all (connection refused). Fixtures go to tests/fixtures/<id>.json.
Usage: ``python benchmarks/capture_kubectl.py`` (needs kubectl on PATH).
"""

from __future__ import annotations

import json
import re
import socket
import threading
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from capture_fixtures import run, save

SRC = "benchmarks/capture_kubectl.py"
NOW = datetime.now(timezone.utc).replace(microsecond=0)


def _ts(ago: timedelta) -> str:
    return (NOW - ago).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod(ns: str, name: str, *, ready: int = 1, total: int = 1, phase: str = "Running", reason: str = "",
         restarts: int = 0, age_h: float = 30.0, node: str = "node-a", terminated: str = "", deleting: bool = False) -> dict:
    """One Pod object (the parts kubectl describe and the stub's Table printer read)."""
    statuses = []
    for c in range(total):
        state: dict = {"running": {"startedAt": _ts(timedelta(hours=age_h))}}
        if reason and c == 0:
            state = {"waiting": {"reason": reason, "message": f"{reason} for container app-{c}"}}
        if terminated and c == 0:
            state = {"terminated": {"reason": terminated, "exitCode": 137 if terminated == "OOMKilled" else 0,
                                    "finishedAt": _ts(timedelta(minutes=3))}}
        last = {"terminated": {"reason": "Error", "exitCode": 1, "finishedAt": _ts(timedelta(minutes=2))}} if restarts else {}
        statuses.append({"name": f"app-{c}", "ready": c < ready, "restartCount": restarts if c == 0 else 0,
                         "image": f"registry.example.test/{name.rsplit('-', 2)[0]}:1.4.2", "imageID": "",
                         "state": state, "lastState": last})
    meta = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", "creationTimestamp": _ts(timedelta(hours=age_h)),
            "labels": {"app": name.rsplit("-", 2)[0]}}
    if deleting:
        meta["deletionTimestamp"] = _ts(timedelta(seconds=20))
    return {"kind": "Pod", "apiVersion": "v1", "metadata": meta,
            "spec": {"nodeName": node if phase != "Pending" else "",
                     "containers": [{"name": f"app-{c}", "image": s["image"]} for c, s in enumerate(statuses)]},
            "status": {"phase": phase, "podIP": "" if phase == "Pending" else f"10.42.{len(ns)}.{len(name)}",
                       "containerStatuses": statuses if phase != "Pending" else []}}


def pods() -> list[dict]:
    """The cluster: 70 healthy pods and a dozen that are not."""
    out = [_pod("shop", f"web-7d9f8c6b5-{i:05x}", age_h=50 + i) for i in range(40)]
    out += [_pod("shop", f"worker-5c4b3a2-{i:05x}", node="node-b") for i in range(20)]
    out += [_pod("kube-system", f"coredns-6f6b679f8f-{i:05x}") for i in range(10)]
    out += [_pod("shop", "api-6b7c8d9e0-crash1", ready=0, reason="CrashLoopBackOff", restarts=7),
            _pod("shop", "api-6b7c8d9e0-crash2", ready=0, reason="CrashLoopBackOff", restarts=12),
            _pod("shop", "cart-55f6d7c8b-pend1", ready=0, phase="Pending", age_h=0.2),
            _pod("shop", "search-7f8e9d0c1-img01", ready=0, reason="ImagePullBackOff", age_h=1),
            _pod("shop", "search-7f8e9d0c1-img02", ready=0, reason="ErrImagePull", age_h=1),
            _pod("shop", "report-28391040-oom01", ready=0, terminated="OOMKilled", restarts=3),
            _pod("shop", "migrate-28391000-done1", ready=0, phase="Succeeded", terminated="Completed"),
            _pod("shop", "gateway-8a9b0c1d2-half1", ready=1, total=2),
            _pod("shop", "cache-9b8a7c6d5-flaky1", restarts=2),
            _pod("kube-system", "metrics-server-7c8d9e-old01", deleting=True)]
    return out


def _age(ts: str) -> str:
    secs = int((NOW - datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)).total_seconds())
    if secs < 120:
        return f"{secs}s"
    if secs < 3600:
        return f"{secs // 60}m"
    if secs < 86400:
        return f"{secs // 3600}h{secs % 3600 // 60}m" if secs < 36000 else f"{secs // 3600}h"
    return f"{secs // 86400}d{secs % 86400 // 3600}h" if secs < 8 * 86400 else f"{secs // 86400}d"


def _row(p: dict) -> list:
    """Table cells of one pod: NAME READY STATUS RESTARTS AGE IP NODE NOMINATED-NODE READINESS-GATES."""
    cs = p["status"]["containerStatuses"]
    ready = sum(c["ready"] for c in cs)
    status = p["status"]["phase"]
    for c in cs:
        st = c["state"]
        status = st.get("waiting", {}).get("reason") or st.get("terminated", {}).get("reason") or status
    if "deletionTimestamp" in p["metadata"]:
        status = "Terminating"
    restarts = sum(c["restartCount"] for c in cs)
    rs = str(restarts)
    if restarts:
        rs += f" ({_age(cs[0]['lastState']['terminated']['finishedAt'])} ago)"
    return [p["metadata"]["name"], f"{ready}/{len(p['spec']['containers'])}", status, rs,
            _age(p["metadata"]["creationTimestamp"]), p["status"]["podIP"] or "<none>",
            p["spec"]["nodeName"] or "<none>", "<none>", "<none>"]


COLUMNS = [("Name", "string", 0), ("Ready", "string", 0), ("Status", "string", 0), ("Restarts", "string", 0),
           ("Age", "string", 0), ("IP", "string", 1), ("Node", "string", 1), ("Nominated Node", "string", 1),
           ("Readiness Gates", "string", 1)]


def _table(items: list[dict]) -> dict:
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "1"},
            "columnDefinitions": [{"name": n, "type": t, "format": "name" if n == "Name" else "", "description": "",
                                   "priority": pr} for n, t, pr in COLUMNS],
            "rows": [{"cells": _row(p), "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                                   "metadata": p["metadata"]}} for p in items]}


DISCOVERY = {
    "/api": {"kind": "APIVersions", "versions": ["v1"],
             "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]},
    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": []},
    "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
        {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod", "verbs": ["get", "list"],
         "shortNames": ["po"]},
        {"name": "events", "singularName": "event", "namespaced": True, "kind": "Event", "verbs": ["get", "list"],
         "shortNames": ["ev"]}]},
    "/version": {"major": "1", "minor": "32", "gitVersion": "v1.32.0-stub", "platform": "linux/amd64"},
}


def _events(ns: str, name: str) -> dict:
    items = [{"kind": "Event", "apiVersion": "v1", "metadata": {"name": f"{name}.{i}", "namespace": ns},
              "involvedObject": {"kind": "Pod", "name": name, "namespace": ns}, "type": t, "reason": r,
              "message": m, "count": c, "firstTimestamp": _ts(timedelta(minutes=first)), "lastTimestamp": _ts(timedelta(minutes=last)),
              "source": {"component": "kubelet", "host": "node-a"}}
             for i, (t, r, m, c, first, last) in enumerate((
                 ("Normal", "Scheduled", f"Successfully assigned {ns}/{name} to node-a", 1, 30, 30),
                 ("Normal", "Pulled", "Container image \"registry.example.test/api:1.4.2\" already present on machine", 8, 30, 2),
                 ("Normal", "Created", "Created container: app-0", 8, 30, 2),
                 ("Normal", "Started", "Started container app-0", 8, 30, 2),
                 ("Warning", "BackOff", "Back-off restarting failed container app-0 in pod " + name, 120, 28, 1)))]
    return {"kind": "EventList", "apiVersion": "v1", "metadata": {}, "items": items}


class Stub(BaseHTTPRequestHandler):
    """Answers the handful of requests kubectl get/describe make."""

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        body = DISCOVERY.get(path)
        m = re.match(r"^/api/v1(?:/namespaces/(?P<ns>[^/]+))?/(?P<res>pods|events)(?:/(?P<name>[^/]+))?$", path)
        if body is None and m:
            items = [p for p in pods() if m["ns"] in (None, p["metadata"]["namespace"])]
            if m["res"] == "events":
                sel = re.search(r"involvedObject\.name%3D([^%&,]+)", query)
                body = _events(m["ns"] or "shop", sel[1] if sel else "")
            elif m["name"]:
                body = next((p for p in items if p["metadata"]["name"] == m["name"]), None)
            else:
                table = "as=Table" in self.headers.get("Accept", "")
                body = _table(items) if table else {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}
        data = json.dumps(body).encode() if body is not None else b"{}"
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _case(cid: str, command: str, code: int, out: str, err: str, keep: list[str], note: str) -> None:
    keep = list(dict.fromkeys(k for k in keep if k and k in out + err))
    save({"id": cid, "class": "kubectl", "command": command, "exit_code": code, "stdout": out,
          "stderr": err, "must_keep": keep, "verbatim": False, "source": f"{SRC}: {note}"})


def _unhealthy(out: str) -> list[str]:
    return [line.rstrip() for line in out.splitlines()
            if re.search(r"CrashLoop|Pending|ImagePull|ErrImage|OOMKilled|Terminating|\b1/2\b|\(\d+m ago\)|^NAME|^NAMESPACE", line)]


def main() -> None:
    """Start the stub, run kubectl get/describe against it, then kubectl with no server."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    k = ["kubectl", f"--server=http://127.0.0.1:{port}"]
    for cid, args in (("kubectl-get-pods", ["get", "pods", "-n", "shop"]),
                      ("kubectl-get-pods-all", ["get", "pods", "-A"]),
                      ("kubectl-get-pods-wide", ["get", "pods", "-n", "shop", "-o", "wide"])):
        code, out, err = run(k + args, ".")
        _case(cid, "kubectl " + " ".join(args), code, out, err, _unhealthy(out), "kubectl get against the stub")
    code, out, err = run(k + ["describe", "pod", "-n", "shop", "api-6b7c8d9e0-crash1"], ".")
    _case("kubectl-describe-crashloop", "kubectl describe pod -n shop api-6b7c8d9e0-crash1", code, out, err,
          [line.strip() for line in out.splitlines() if re.search(r"CrashLoopBackOff|BackOff|Restart Count|Exit Code", line)],
          "kubectl describe (client-side rendering) of a crash-looping pod served by the stub")
    srv.shutdown()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    code, out, err = run(["kubectl", f"--server=http://127.0.0.1:{dead}", "get", "pods"], ".")
    _case("kubectl-get-refused", "kubectl get pods", code, out, err,
          [line for line in err.splitlines() if "refused" in line][-1:], "kubectl with no API server listening")
    print("kubectl fixtures written")


if __name__ == "__main__":
    main()
