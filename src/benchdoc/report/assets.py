"""The report's stylesheet and script, inlined into the page (a report fetches nothing).

They live here as text rather than as package data files so that every install,
editable or not, carries them. The page's Content-Security-Policy allows exactly
these two blocks by hash, and no network source at all.
"""

from __future__ import annotations

import base64
import hashlib

STYLE = """
:root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0072B2; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 "DejaVu Sans", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header.page { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); background: var(--soft); }
header.page h1 { margin: 0 0 4px; font-size: 24px; }
main { padding: 8px 32px 48px; max-width: 1600px; }
h2 { margin: 32px 0 8px; font-size: 20px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { margin: 24px 0 6px; font-size: 17px; }
p.lede, p.source { margin: 4px 0; color: var(--muted); overflow-wrap: anywhere; }
.banner { margin: 12px 0; padding: 10px 14px; border-left: 5px solid #E69F00; background: #fff8e6; }
.warning { margin: 6px 0; padding: 6px 10px; border-left: 4px solid #D55E00; background: #fdf0ea; }
nav.toc a { margin-right: 14px; }
a { color: var(--accent); }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 5px 9px; text-align: left; vertical-align: top; }
thead th { background: var(--soft); position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th button { all: unset; cursor: pointer; font-weight: 600; display: inline-flex; gap: 4px; align-items: center; }
th button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
th button::after { content: "\\2195"; color: #9aa4ae; font-weight: 400; }
th[aria-sort="ascending"] button::after { content: "\\25B2"; color: var(--ink); }
th[aria-sort="descending"] button::after { content: "\\25BC"; color: var(--ink); }
.name { display: block; color: var(--muted); font: 12px "DejaVu Sans Mono", ui-monospace, monospace; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; white-space: nowrap; border: 1px solid transparent; }
.s-reference { background: #dcebf6; color: #004a75; }
.s-works { background: #d6f0e7; color: #00543f; }
.s-slower, .s-worse { background: #f9e0d2; color: #8a3d00; }
.s-no-difference { background: #e3f2fb; color: #1c5a7c; }
.s-failed { background: #fbe3e0; color: #9b1c1c; border-color: #D55E00; }
.s-untested { background: #eeeeee; color: #444; border-style: dashed; border-color: #999; }
.s-measured { background: #fcefd2; color: #6d4c00; }
.s-inconclusive { background: #eef1f4; color: #3d4a57; border-color: #9aa4ae; }
.s-superseded { background: #eeeeee; color: #555; }
.sim { display: inline-block; margin-left: 4px; padding: 0 6px; border-radius: 8px; font-size: 11px; background: #fff3cd; color: #6d4c00; border: 1px solid #E69F00; }
fieldset#status-filter { border: 1px solid var(--line); padding: 6px 12px; margin: 8px 0; display: inline-flex; flex-wrap: wrap; gap: 6px 14px; align-items: center; }
fieldset#status-filter legend { font-weight: 600; padding: 0 4px; }
#row-count { color: var(--muted); margin-left: 8px; }
figure { margin: 12px 0 20px; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); background: #fff; }
figcaption { color: var(--muted); font-size: 13px; max-width: 1100px; }
details.experiment { border-top: 1px dashed var(--line); padding: 6px 0; }
details.experiment > summary { font-weight: 600; font-size: 16px; color: var(--ink); padding: 4px 0; }
details.experiment details.experiment { margin-left: 18px; }
details.experiment .name { display: inline; margin-left: 6px; font-weight: 400; }
/* The results table fits the page: long text wraps, a date and a number never do. */
#results { width: 100%; }
#results td.experiment { min-width: 9em; }
#results code.name { background: none; padding: 0; }
#results td.notes { min-width: 14em; overflow-wrap: anywhere; }
#results td.date { white-space: nowrap; }
#results .interval, #results .value, #results .spread { white-space: nowrap; }
/* With many metrics a median's interval and n go under it rather than widen the table. */
#results td.metric { white-space: normal; min-width: 4.5em; }
#results td.metric .spread { font-size: 12px; }
#results .logline { display: block; margin-top: 2px; padding: 0; background: none; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
#results .warn { display: block; color: #8a3d00; }
#results tr.level td.experiment { padding-left: 26px; border-left: 4px solid var(--line); }
#results tr.level { background: #fbfcfd; }
svg.spark { display: block; margin: 2px 0 0 auto; color: var(--accent); }
details { margin: 4px 0; }
summary { cursor: pointer; color: var(--accent); }
pre { background: #0d1117; color: #e6edf3; padding: 10px 12px; overflow: auto; max-height: 360px; font: 12.5px/1.45 "DejaVu Sans Mono", ui-monospace, monospace; border-radius: 4px; white-space: pre-wrap; word-break: break-word; }
code { font: 13px "DejaVu Sans Mono", ui-monospace, monospace; background: var(--soft); padding: 0 3px; }
ul.envdiff { margin: 4px 0; }
li .name { display: inline; margin: 0 2px; }
.muted { color: var(--muted); }
/* Charts side by side where they fit, one per row on a narrow screen. */
.chart-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 560px), 1fr)); gap: 8px 20px; align-items: start; }
.chart-grid figure { margin: 0; }
/* A wide table scrolls inside its own box; the page itself never scrolls sideways. */
.scroll { max-width: 100%; overflow-x: auto; }
@media (max-width: 700px) {
  header.page { padding: 12px 14px 8px; }
  main { padding: 4px 14px 32px; }
  table { font-size: 13px; }
  th, td { padding: 4px 6px; }
  nav.toc a { display: inline-block; margin: 2px 10px 2px 0; }
  /* A card per experiment: each cell on its own line, named by its column; empty cells left out. */
  #results thead { display: none; }
  #results, #results tbody, #results tr, #results td { display: block; width: auto; }
  #results tr { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 10px; padding: 6px 10px; }
  #results tr[hidden], #results td.empty { display: none; }
  #results td { border: none; padding: 2px 0; text-align: left; white-space: normal; }
  #results td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-size: 12px; }
  #results td.experiment { font-size: 15px; font-weight: 600; }
  #results tr.level { margin-left: 14px; padding: 4px 10px; }
  /* A load level is a line or two under its sweep: its load, status and figures side by side. */
  #results tr.level td { display: inline-block; margin-right: 12px; }
  #results tr.level td.experiment { display: block; }
  #results tr.level td[data-label="Runs"], #results tr.level td[data-label="Last run"], #results tr.level td.empty { display: none; }
  #results .against { display: none; }
  #results tr.level td.experiment { padding-left: 0; border-left: none; }
  svg.spark { display: inline; margin: 0 0 0 6px; vertical-align: middle; }
}
"""

SCRIPT = """
(function () {
  "use strict";
  /* A link to an experiment opens its folded block (and the sweep's it sits in). */
  function openTarget() {
    var target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") { node.open = true; }
    }
    if (target) { target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();

  var table = document.getElementById("results");
  if (!table) { return; }
  var body = table.tBodies[0];
  var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var count = document.getElementById("row-count");
  var all = Array.prototype.slice.call(body.rows);
  /* A sweep's load levels stay under it, in their order, however the table is sorted. */
  var levels = {};
  all.forEach(function (row) {
    var parent = row.getAttribute("data-parent");
    if (parent) { (levels[parent] = levels[parent] || []).push(row); }
  });
  var tops = all.filter(function (row) { return !row.getAttribute("data-parent"); });

  function sortKey(row, column) {
    var cell = row.cells[column];
    var value = cell.getAttribute("data-sort");
    return value === null ? cell.textContent.trim() : value;
  }

  function sortBy(column, ascending) {
    var numeric = headers[column].getAttribute("data-type") === "number";
    var rows = tops.slice();
    rows.sort(function (a, b) {
      var x = sortKey(a, column), y = sortKey(b, column);
      if (x === "" || y === "") {  /* missing values last, whichever the direction */
        return (x === "") - (y === "") || a.getAttribute("data-index") - b.getAttribute("data-index");
      }
      var order = numeric ? parseFloat(x) - parseFloat(y)
                          : x.localeCompare(y, undefined, { numeric: true, sensitivity: "base" });
      if (!ascending) { order = -order; }
      return order || a.getAttribute("data-index") - b.getAttribute("data-index");
    });
    rows.forEach(function (row) {
      body.appendChild(row);
      (levels[row.getAttribute("data-experiment")] || []).forEach(function (level) { body.appendChild(level); });
    });
    headers.forEach(function (th) { th.removeAttribute("aria-sort"); });
    headers[column].setAttribute("aria-sort", ascending ? "ascending" : "descending");
  }

  headers.forEach(function (th, column) {
    var button = th.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      sortBy(column, th.getAttribute("aria-sort") !== "ascending");
    });
  });

  var boxes = Array.prototype.slice.call(document.querySelectorAll("#status-filter input[type=checkbox]"));
  function applyFilter() {
    var shown = {};
    boxes.forEach(function (box) { shown[box.value] = box.checked; });
    var visible = 0;
    var open = {};
    tops.forEach(function (row) {
      var show = shown[row.getAttribute("data-status")] !== false;
      row.hidden = !show;
      open[row.getAttribute("data-experiment")] = show;
      if (show) { visible += 1; }
    });
    all.forEach(function (row) {
      var parent = row.getAttribute("data-parent");
      if (!parent) { return; }
      var show = shown[row.getAttribute("data-status")] !== false && open[parent] !== false;
      row.hidden = !show;
      if (show) { visible += 1; }
    });
    if (count) { count.textContent = "showing " + visible + " of " + all.length; }
  }
  boxes.forEach(function (box) { box.addEventListener("change", applyFilter); });
  applyFilter();
})();
"""


def csp_hash(text: str) -> str:
    """The CSP source expression allowing exactly this inline block: 'sha256-...'."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy() -> str:
    """No network source at all; only the inline style and script above; images from data: URIs."""
    return (
        f"default-src 'none'; img-src data:; style-src {csp_hash(STYLE)}; script-src {csp_hash(SCRIPT)}; "
        "base-uri 'none'; form-action 'none'"
    )
