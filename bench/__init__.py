"""Honest, side-by-side measurement: ``thresher bench`` (corpus cases × arms) and ``thresher replay``
(what thresher would have saved on recorded Claude Code sessions).

- :mod:`thresher.bench.arms` — the compressors measured: ``raw``, ``headtail``, ``thresher[:ROLE]``,
  ``cmd:SHELL COMMAND``;
- :mod:`thresher.bench.score` — the token counter (exact cl100k or the estimator, named) and the
  per-case scorer (facts kept verbatim, byte-exactness, growth, signed savings);
- :mod:`thresher.bench.runner` — cases × arms, totals, medians, per-class tables, failures;
- :mod:`thresher.bench.render` — terminal table, JSON and an offline HTML page;
- :mod:`thresher.bench.tables`, :mod:`thresher.bench.charts` — the text tables and the HTML pieces
  (SVG bar chart, table, CSS) that ``thresher gain`` shares with bench and replay;
- :mod:`thresher.bench.fleet` — one pure function mapped over items: process pool, Dask or Ray;
- :mod:`thresher.bench.replay` — transcript reader and per-tool / per-command replay report.
"""
