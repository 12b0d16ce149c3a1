"""The CSS and JavaScript inlined into the HTML pages (no CDN, no web font, no network).

The script reads the page's data from ``<script type="application/json" id="thresher-data">`` and
only ever writes text through ``textContent`` (tool output is untrusted). On a graph page a click
on a node shows its params; on a trace page it shows the stage's side-by-side input/output.
"""

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:20px;color:#263238}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:18px 0 8px}h3{font-size:14px;margin:8px 0}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace}
.muted{color:#78909c}.small{font-size:12px}
.cards{display:flex;gap:10px;flex-wrap:wrap;margin:10px 0}
.card{border:1px solid #cfd8dc;border-radius:6px;padding:6px 12px;font-size:12px;color:#546e7a}
.card b{display:block;font-size:17px;color:#263238}
.legend{display:flex;gap:10px;flex-wrap:wrap;font-size:12px;margin:6px 0}
.legend span{display:inline-flex;align-items:center;gap:4px}
.legend i{display:inline-block;width:14px;height:12px;border:1.5px solid;border-radius:3px}
.main{display:flex;gap:18px;align-items:flex-start}
.graphcol{flex:none;overflow:auto;max-width:48vw}
.detail{flex:1;min-width:0;border:1px solid #cfd8dc;border-radius:6px;padding:10px 14px;
 max-height:calc(100vh - 40px);overflow:auto;position:sticky;top:10px}
g.node{cursor:pointer}g.node:hover rect,g.node:focus rect{stroke-width:3}
g.node.selected rect{stroke:#1e88e5;stroke-width:3.5}g.node:focus{outline:none}
.badge{display:inline-block;border-radius:10px;padding:1px 9px;font-size:12px;border:1.5px solid}
table.diff{border-collapse:collapse;width:100%;table-layout:fixed;font-size:12px}
table.diff td{vertical-align:top;padding:0 6px;white-space:pre-wrap;word-break:break-all;overflow-wrap:anywhere;
 font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace}
table.diff td.ln{text-align:right;color:#90a4ae;user-select:none}
table.diff col.ln{width:3.4em}table.diff col.text{width:auto}
tr.removed td.in{background:#ffebee;color:#b71c1c}tr.removed td.ln-in{background:#ffcdd2}
tr.marker td.out,tr.added td.out{background:#fff8e1}tr.changed td.in,tr.changed td.out{background:#fff3e0}
tr.critical td.ln-in,tr.critical td.ln-out{border-left:3px solid #c62828;color:#c62828}
tr.gap td{background:#eceff1;color:#607d8b;text-align:center;font-style:italic}
.note{display:block;font-style:italic;color:#6d4c41;font-family:system-ui,sans-serif}
table.stages{border-collapse:collapse;font-size:12px}
table.stages td,table.stages th{padding:2px 8px;border-bottom:1px solid #eceff1;text-align:left}
table.stages tr[data-node]{cursor:pointer}table.stages tr[data-node]:hover{background:#e3f2fd}
table.stages td.num{text-align:right}
pre.emission{border:1px solid #cfd8dc;border-radius:6px;padding:8px;white-space:pre-wrap;
 word-break:break-all;overflow-wrap:anywhere;font-size:12px;margin:0}
pre.emission .marker{background:#fff8e1;display:block}
.graph-section{border-top:1px solid #cfd8dc;margin-top:18px;padding-top:6px}
.graph-section .params{min-width:260px}
nav.toc{columns:4 180px;font-size:13px}
"""

JS = r"""
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("thresher-data").textContent);
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function nodeOf(graph, id) {
    for (var i = 0; i < graph.nodes.length; i++) if (graph.nodes[i].id === id) return graph.nodes[i];
    return null;
  }
  function select(svg, id) {
    svg.querySelectorAll("g.node").forEach(function (g) {
      g.classList.toggle("selected", g.getAttribute("data-node") === id);
    });
  }
  function wire(svg, show) {
    svg.addEventListener("click", function (ev) {
      var g = ev.target.closest("g.node");
      if (g) { select(svg, g.getAttribute("data-node")); show(g.getAttribute("data-node")); }
    });
    svg.addEventListener("keydown", function (ev) {
      var g = ev.target.closest("g.node");
      if (g && (ev.key === "Enter" || ev.key === " ")) {
        ev.preventDefault(); select(svg, g.getAttribute("data-node")); show(g.getAttribute("data-node"));
      }
    });
  }

  function showParams(panel, graph, id) {
    var node = nodeOf(graph, id);
    panel.replaceChildren();
    panel.setAttribute("data-node", id);
    panel.append(el("h3", null, node.id + " \u00b7 " + node.stage + " (phase " + node.phase + ")"));
    var ports = graph.edges.filter(function (e) { return e.src === id; })
      .map(function (e) { return e.port + " \u2192 " + e.dst; });
    panel.append(el("p", "small", ports.length ? "ports: " + ports.join(", ") : "last node"));
    panel.append(el("pre", "small", JSON.stringify(node.params, null, 2)));
  }

  function cell(tr, cls, text) { var td = el("td", cls, text); tr.append(td); return td; }
  function lineNo(view, i) {
    if (i === null) return "";
    var o = view.origin[i];
    return o < 0 ? "\u00b7" : String(o + 1);
  }
  function visibleRows(st, all) {
    var rows = st.rows, keep = rows.map(function (r) { return all || r[0] !== "same" ||
      (r[2] !== null && st.notes[r[2]] !== undefined); });
    if (all || keep.indexOf(true) < 0) return rows.map(function () { return true; });
    var out = keep.slice();
    keep.forEach(function (k, i) {
      if (!k) return;
      for (var d = -3; d <= 3; d++) if (i + d >= 0 && i + d < rows.length) out[i + d] = true;
    });
    return out;
  }
  function diffTable(st) {
    var vin = DATA.views[st["in"]], vout = DATA.views[st.out];
    var all = !document.getElementById("only-changes").checked;
    var table = el("table", "diff"), cg = el("colgroup");
    ["ln", "text", "ln", "text"].forEach(function (c) { cg.append(el("col", c)); });
    table.append(cg);
    var head = el("tr");
    ["#", "input (" + vin.lines.length + " lines)", "#",
     "output (" + vout.lines.length + " lines)"].forEach(function (h) { head.append(el("th", null, h)); });
    table.append(head);
    var show = visibleRows(st, all), hidden = 0;
    function flush() {
      if (!hidden) return;
      var tr = el("tr", "gap"), td = cell(tr, null, "\u2026 " + hidden + " unchanged lines");
      td.colSpan = 4; table.append(tr); hidden = 0;
    }
    st.rows.forEach(function (r, n) {
      if (!show[n]) { hidden++; return; }
      flush();
      var tr = el("tr", r[0] + (r[3] ? " critical" : ""));
      tr.setAttribute("data-kind", r[0]);
      if (r[3]) tr.title = "critical line (Score: part of the answer)";
      cell(tr, "ln ln-in", lineNo(vin, r[1]));
      cell(tr, "in", r[1] === null ? "" : vin.lines[r[1]]);
      cell(tr, "ln ln-out", lineNo(vout, r[2]));
      var out = cell(tr, "out", r[2] === null ? "" : vout.lines[r[2]]);
      if (r[2] !== null && st.notes[r[2]] !== undefined) out.append(el("span", "note", st.notes[r[2]]));
      table.append(tr);
    });
    flush();
    return table;
  }
  function showStage(id) {
    var detail = document.getElementById("detail"), node = nodeOf(DATA.graph, id);
    var st = DATA.stages[id];
    detail.replaceChildren();
    detail.setAttribute("data-node", id);
    detail.append(el("h2", null, node.id + " \u00b7 " + node.stage));
    var outcome = node.outcome || "not-run", style = DATA.styles[outcome] || ["#fff", "#999"];
    var badge = el("span", "badge", outcome + (node.invariant ? " " + node.invariant : ""));
    badge.style.background = style[0]; badge.style.borderColor = style[1];
    detail.append(badge);
    if (!st) {
      detail.append(el("p", "muted", "This node did not run: the payload left the graph by " +
        "another path (see the dashed edges)."));
      return;
    }
    if (node.reason && node.reason !== outcome) detail.append(el("p", null, node.reason));
    detail.append(el("p", "small muted", "phase " + node.phase + " \u00b7 lines " + node.lines_in +
      "\u2192" + node.lines_out + " \u00b7 tokens " + node.tokens_in + "\u2192" + node.tokens_out +
      " \u00b7 " + node.ms.toFixed(2) + " ms \u00b7 left by port " + (node.port || "out")));
    if (outcome === "rejected" || outcome === "failed")
      detail.append(el("p", "small", "Its output was not used: the input below passed on unchanged."));
    var counts = {removed: 0, marker: 0, changed: 0, added: 0};
    st.rows.forEach(function (r) { if (counts[r[0]] !== undefined) counts[r[0]]++; });
    if (st.verdict) detail.append(el("p", null, "verdict: " + st.verdict +
      " \u2014 the tool's output passes through byte-exact"));
    st.notes_added.forEach(function (n) { detail.append(el("p", "small", "note: " + n)); });
    detail.append(el("p", "small summary", counts.removed + " lines removed \u00b7 " + counts.marker +
      " marker lines written \u00b7 " + counts.changed + " changed \u00b7 " + counts.added + " restored"));
    if (!counts.removed && !counts.marker && !counts.changed && !counts.added)
      detail.append(el("p", "small muted", "No line changed" + (outcome === "applied" ?
        " (this stage set line tiers or chose the port)." : ".")));
    detail.append(diffTable(st));
  }

  if (DATA.kind === "graphs") {
    document.querySelectorAll("svg.thresher-graph").forEach(function (svg) {
      var gid = svg.getAttribute("data-graph"), graph = DATA.graphs[gid];
      var panel = svg.closest(".graph-section").querySelector(".params");
      wire(svg, function (id) { showParams(panel, graph, id); });
    });
  } else {
    var svg = document.querySelector("svg.thresher-graph");
    var current = DATA.initial;
    wire(svg, function (id) { current = id; showStage(id); });
    document.querySelectorAll("table.stages tr[data-node]").forEach(function (tr) {
      tr.addEventListener("click", function () {
        current = tr.getAttribute("data-node"); select(svg, current); showStage(current);
      });
    });
    document.getElementById("only-changes").addEventListener("change", function () {
      showStage(current);
    });
    select(svg, current); showStage(current);
  }
})();
"""
