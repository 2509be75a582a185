#include "report/html_page.hpp"

namespace dnnbench {

const std::string_view kHtmlPageHead = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
)PAGE";

const std::string_view kHtmlPageStyle = R"PAGE(<style>
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:10px 18px}
header h1{font-size:17px;margin:0 0 4px}
header .meta{color:#c8cdd8;font-size:12px}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #dde1e8;padding:6px 18px;z-index:2}
nav a{margin-right:14px;color:#2457c5;text-decoration:none;font-weight:600}
nav select{margin-left:8px}
section{padding:8px 18px 18px}
h2{font-size:15px;margin:14px 0 6px;border-bottom:1px solid #dde1e8;padding-bottom:3px}
h3{font-size:13px;margin:8px 0 4px}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:8px 10px}
.kpi{font-size:20px;font-weight:700}
.kpi.bad{color:#c0392b}.kpi.good{color:#1e8449}
details.graph{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:6px 0;padding:4px 10px}
details.graph summary{cursor:pointer;font-weight:600}
details.graph summary .sub{font-weight:400;color:#5b6375;margin-left:8px}
.charts{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}
svg .axis{stroke:#9aa3b2;stroke-width:1}
svg .grid{stroke:#e6e9ef;stroke-width:1}
svg .bar{fill:#8fb1e9}
svg .bar.pick{fill:#e67e22}
svg .bar.best{stroke:#1e8449;stroke-width:2}
svg .whisker{stroke:#1d2330;stroke-width:1.3}
svg .one{stroke:#c0392b;stroke-dasharray:3 2}
svg .ceiling{stroke:#c0392b;stroke-width:1.5;fill:none}
svg .ceiling.vec{stroke:#8e44ad;stroke-dasharray:4 3}
svg .sig{fill:#1e8449}svg .nsig{fill:#9aa3b2}
svg .tick{stroke:#2457c5;stroke-opacity:.55}
svg .medmark{stroke:#c0392b;stroke-width:2}
table{border-collapse:collapse;background:#fff;font-size:12px;width:100%}
th,td{border-bottom:1px solid #e6e9ef;padding:3px 6px;text-align:left;white-space:nowrap}
td.msg{white-space:normal;max-width:420px;color:#5b6375}
th{background:#eef1f6;cursor:pointer;position:sticky;top:0;user-select:none}
th.asc::after{content:" \25B2"}th.desc::after{content:" \25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.tools{margin:6px 0}
.tools input{width:280px;padding:3px 6px}
.st-success{color:#1e8449}.st-failed,.st-error,.st-timeout{color:#c0392b;font-weight:600}.st-skipped{color:#8a6d00}
.v-SLOWER,.v-BROKEN{color:#c0392b;font-weight:700}.v-FASTER{color:#1e8449;font-weight:700}.v-UNDECIDED{color:#8a6d00}
.legend span{display:inline-block;margin-right:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:middle}
.muted{color:#5b6375}
.scroll{max-height:560px;overflow:auto;border:1px solid #dde1e8}
</style>
)PAGE";

const std::string_view kHtmlPageBody =
    R"PAGE(<header><h1 id="title">dnnbench report</h1><div class="meta" id="runmeta"></div></header>
<nav><a href="#overview">Overview</a><a href="#graphs">Graphs</a><a href="#rows">Rows</a><a href="#failures">Failures</a><a href="#workloads" id="navworkloads" style="display:none">Workloads</a><a href="#compare" id="navcompare" style="display:none">Compare</a><label>run <select id="runsel"></select></label></nav>
<section id="overview"><h2>Overview</h2><div class="cards" id="kpis"></div>
<div class="charts"><div><h3>Roofline: arithmetic intensity vs achieved FLOP/s, against the device's peaks</h3><div id="roofline"></div></div>
<div><h3>The heuristic's pick against the best engine measured (per graph and provider)</h3><div id="rankchart"></div></div></div></section>
<section id="graphs"><h2>Graphs</h2><div class="tools"><input id="graphfilter" placeholder="filter graphs (name, op, data type)"></div><div id="graphlist"></div></section>
<section id="rows"><h2>Rows</h2><div id="rowtable"></div></section>
<section id="failures"><h2>Failures</h2><div id="failtable"></div></section>
<section id="workloads" style="display:none"><h2>Workloads: per op family and model</h2><div id="workloadbody"></div></section>
<section id="compare" style="display:none"><h2>Compare</h2><div id="comparebody"></div></section>
)PAGE";

const std::string_view kHtmlPageScript = R"PAGE(<script>
(function () {
'use strict';
window.addEventListener('error', function (e) { document.body.setAttribute('data-error', String(e.message)); });
var D = JSON.parse(document.getElementById('dnnbench-data').textContent);
var PALETTE = ['#2457c5', '#e67e22', '#1e8449', '#8e44ad', '#c0392b', '#16a085', '#7f8c8d'];
function esc(s) { return String(s == null ? '' : s).replace(/[&<>"]/g, function (c) { return {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]; }); }
function el(id) { return document.getElementById(id); }
function isnum(x) { return typeof x === 'number' && isFinite(x); }
function fmtMs(x) { if (!isnum(x)) return '-'; if (x < 0.01) return (x * 1000).toFixed(2) + ' \u00b5s'; if (x < 100) return x.toPrecision(4) + ' ms'; return x.toFixed(1) + ' ms'; }
function fmtSi(x, unit) { if (!isnum(x)) return '-'; var p = ['', 'k', 'M', 'G', 'T', 'P'], i = 0; while (Math.abs(x) >= 1000 && i < p.length - 1) { x /= 1000; i++; } return x.toPrecision(3) + ' ' + p[i] + unit; }
function fmtPct(x) { return isnum(x) ? (100 * x).toFixed(1) + '%' : '-'; }
function fmtX(x) { return isnum(x) ? x.toFixed(3) : '-'; }
function shorten(s, n) { s = String(s); return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
function providerColor(p, list) { var i = list.indexOf(p); return PALETTE[(i < 0 ? 0 : i) % PALETTE.length]; }

// A sortable, filterable table: cols [{k, t, num, f(row) -> text, cls(row)}].
function table(host, cols, rows, opts) {
  opts = opts || {};
  var state = {key: opts.sort || null, dir: opts.dir || 1, q: ''};
  host.innerHTML = '';
  var tools = document.createElement('div'); tools.className = 'tools';
  var input = document.createElement('input'); input.placeholder = 'filter rows (any column; space-separated words must all match)';
  tools.appendChild(input);
  var count = document.createElement('span'); count.className = 'muted'; count.style.marginLeft = '8px'; tools.appendChild(count);
  host.appendChild(tools);
  var wrap = document.createElement('div'); wrap.className = 'scroll'; host.appendChild(wrap);
  function value(c, r) { return c.v ? c.v(r) : r[c.k]; }
  function text(c, r) { return c.f ? c.f(r) : (value(c, r) == null ? '' : String(value(c, r))); }
  function draw() {
    var words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = rows.filter(function (r) {
      if (!words.length) return true;
      var line = cols.map(function (c) { return text(c, r); }).join(' ').toLowerCase();
      return words.every(function (w) { return line.indexOf(w) >= 0; });
    });
    if (state.key != null) {
      var c = cols[state.key];
      shown.sort(function (a, b) {
        var x = value(c, a), y = value(c, b);
        if (x == null && y == null) return 0; if (x == null) return 1; if (y == null) return -1;
        return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
      });
    }
    var limit = opts.limit || 2000;
    var h = '<table><thead><tr>' + cols.map(function (c, i) {
      return '<th data-i="' + i + '" class="' + (state.key === i ? (state.dir > 0 ? 'asc' : 'desc') : '') + '">' + esc(c.t) + '</th>';
    }).join('') + '</tr></thead><tbody>';
    shown.slice(0, limit).forEach(function (r) {
      h += '<tr>' + cols.map(function (c) {
        var cls = (c.num ? 'num ' : '') + (c.cls ? c.cls(r) : '');
        return '<td class="' + cls + '">' + esc(text(c, r)) + '</td>';
      }).join('') + '</tr>';
    });
    h += '</tbody></table>';
    wrap.innerHTML = h;
    count.textContent = shown.length + ' of ' + rows.length + ' rows' + (shown.length > limit ? ' (first ' + limit + ' shown)' : '');
    Array.prototype.forEach.call(wrap.querySelectorAll('th'), function (th) {
      th.addEventListener('click', function () {
        var i = Number(th.getAttribute('data-i'));
        if (state.key === i) state.dir = -state.dir; else { state.key = i; state.dir = 1; }
        draw();
      });
    });
  }
  input.addEventListener('input', function () { state.q = input.value; draw(); });
  draw();
}

function logScale(lo, hi, a, b) { var l0 = Math.log10(lo), l1 = Math.log10(hi); return function (v) { return a + (b - a) * (Math.log10(v) - l0) / (l1 - l0); }; }
function decades(lo, hi) { var out = []; for (var e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(Math.pow(10, e)); return out; }

function roofline(run, providers) {
  var pts = run.rows.filter(function (r) { return r.st === 'success' && isnum(r.flops) && isnum(r.bps) && r.flops > 0 && r.bps > 0; });
  if (!pts.length) return '<p class="muted">No timed rows with FLOP and byte counts.</p>';
  var ceilings = {};
  run.rows.forEach(function (r) {
    if (!r.peak) return;
    var key = r.peak.dev + ' ' + run.graphs[r.g].dt;
    if (!ceilings[key]) ceilings[key] = {label: shorten(r.peak.dev, 28) + ' ' + run.graphs[r.g].dt, mf: r.peak.mf, vf: r.peak.vf, bw: r.peak.bw};
  });
  var keys = Object.keys(ceilings).slice(0, 4);
  var ai = pts.map(function (r) { return r.flops / r.bps; });
  var xlo = Math.min.apply(null, ai) / 3, xhi = Math.max.apply(null, ai) * 3;
  var ys = pts.map(function (r) { return r.flops; });
  keys.forEach(function (k) { [ceilings[k].mf, ceilings[k].vf].forEach(function (v) { if (isnum(v)) ys.push(v); }); });
  var ylo = Math.min.apply(null, pts.map(function (r) { return r.flops; })) / 3, yhi = Math.max.apply(null, ys) * 2;
  var W = 620, H = 380, L = 64, R = 150, T = 10, B = 40;
  var X = logScale(xlo, xhi, L, W - R), Y = logScale(ylo, yhi, H - B, T);
  var s = '<svg class="chart roofline" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
  decades(xlo, xhi).forEach(function (v) { if (v < xlo || v > xhi) return; s += '<line class="grid" x1="' + X(v) + '" x2="' + X(v) + '" y1="' + T + '" y2="' + (H - B) + '"/><text x="' + X(v) + '" y="' + (H - B + 14) + '" text-anchor="middle">' + fmtSi(v, '') + '</text>'; });
  decades(ylo, yhi).forEach(function (v) { if (v < ylo || v > yhi) return; s += '<line class="grid" x1="' + L + '" x2="' + (W - R) + '" y1="' + Y(v) + '" y2="' + Y(v) + '"/><text x="' + (L - 4) + '" y="' + (Y(v) + 4) + '" text-anchor="end">' + fmtSi(v, '') + '</text>'; });
  s += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + (H - B) + '" y2="' + (H - B) + '"/><line class="axis" x1="' + L + '" x2="' + L + '" y1="' + T + '" y2="' + (H - B) + '"/>';
  s += '<text x="' + ((L + W - R) / 2) + '" y="' + (H - 6) + '" text-anchor="middle">arithmetic intensity (FLOP / byte, analytical)</text>';
  s += '<text transform="translate(12,' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle">achieved FLOP/s</text>';
  keys.forEach(function (k, i) {
    var c = ceilings[k];
    [['mf', ''], ['vf', ' vec']].forEach(function (kind) {
      var peak = c[kind[0]]; if (!isnum(peak)) return;
      var path = [], n = 48;
      for (var j = 0; j <= n; j++) {
        var x = xlo * Math.pow(xhi / xlo, j / n);
        var y = isnum(c.bw) ? Math.min(peak, c.bw * x) : peak;
        if (y >= ylo && y <= yhi) path.push((path.length ? 'L' : 'M') + X(x).toFixed(1) + ',' + Y(y).toFixed(1));
      }
      s += '<path class="ceiling' + (kind[1] ? ' vec' : '') + '" d="' + path.join('') + '"/>';
      s += '<text x="' + (W - R + 4) + '" y="' + (Y(Math.min(peak, yhi)) + 4 + 11 * i) + '">' + esc(kind[1] ? 'vector ' : 'matrix ') + fmtSi(peak, 'FLOP/s') + '</text>';
    });
  });
  pts.forEach(function (r) {
    var g = run.graphs[r.g];
    s += '<circle cx="' + X(r.flops / r.bps).toFixed(1) + '" cy="' + Y(r.flops).toFixed(1) + '" r="' + (r.pick ? 4 : 2.5) + '" fill="' + providerColor(r.p, providers) + '" fill-opacity="' + (r.pick ? 0.95 : 0.55) + '"><title>' + esc(g.name + ' ' + r.p + ' ' + r.e + ': ' + fmtSi(r.flops, 'FLOP/s') + ', ' + fmtPct(r.pf) + ' of peak') + '</title></circle>';
  });
  s += '</svg>';
  var legend = '<div class="legend">' + providers.map(function (p) { return '<span><i style="background:' + providerColor(p, providers) + '"></i>' + esc(p) + '</span>'; }).join('') +
    '<span>large dot: the heuristic\'s pick</span>' + keys.map(function (k) { return '<span class="muted">ceiling: ' + esc(ceilings[k].label) + '</span>'; }).join('') + '</div>';
  return s + legend;
}

// Per graph and provider: the pick's rank among passing engines and its time over the best's.
function pickStats(run) {
  var out = [], by = {};
  run.rows.forEach(function (r) { var k = r.g + '|' + r.p; (by[k] = by[k] || []).push(r); });
  Object.keys(by).forEach(function (k) {
    var rows = by[k], pick = rows.filter(function (r) { return r.pick; })[0];
    var ok = rows.filter(function (r) { return r.st === 'success' && isnum(r.med); });
    if (!pick || ok.length < 2 || !isnum(pick.med) || pick.st !== 'success') return;
    var best = ok.reduce(function (a, b) { return b.med < a.med ? b : a; });
    var rank = 1 + ok.filter(function (r) { return r.med < pick.med; }).length;
    out.push({graph: run.graphs[pick.g].name, p: pick.p, pick: pick.e, best: best.e, rank: rank, n: ok.length, gap: pick.med / best.med, pmed: pick.med, bmed: best.med});
  });
  return out;
}

function gapText(g) { return g < 3 ? '+' + ((g - 1) * 100).toFixed(1) + '%' : g.toPrecision(3) + '\u00d7'; }
function rankChart(stats) {
  if (!stats.length) return '<p class="muted">No graph with two or more passing engines of one provider.</p>';
  var first = stats.filter(function (s) { return s.rank === 1; }).length;
  var worst = stats.slice().sort(function (a, b) { return b.gap - a.gap; }).slice(0, 25);
  var maxGap = Math.max(1.05, worst[0].gap);
  var W = 640, rowH = 16, L = 260, R = 120, H = worst.length * rowH + 34;
  var X = function (v) { return L + (W - L - R) * (v - 1) / (maxGap - 1); };
  var s = '<svg class="chart rank" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
  worst.forEach(function (d, i) {
    var y = 4 + i * rowH;
    s += '<text x="' + (L - 6) + '" y="' + (y + 11) + '" text-anchor="end">' + esc(shorten(d.graph + ' ' + d.p, 40)) + '</text>';
    s += '<rect class="bar' + (d.rank === 1 ? '' : ' pick') + '" x="' + L + '" y="' + (y + 2) + '" width="' + Math.max(1, X(d.gap) - L).toFixed(1) + '" height="' + (rowH - 5) + '"><title>' + esc('pick ' + d.pick + ' ' + fmtMs(d.pmed) + ', best ' + d.best + ' ' + fmtMs(d.bmed)) + '</title></rect>';
    s += '<text x="' + (X(d.gap) + 4).toFixed(1) + '" y="' + (y + 11) + '">' + gapText(d.gap) + ' rank ' + d.rank + '/' + d.n + '</text>';
  });
  var yb = worst.length * rowH + 8;
  s += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + yb + '" y2="' + yb + '"/><text x="' + L + '" y="' + (yb + 14) + '">pick = best</text><text x="' + (W - R) + '" y="' + (yb + 14) + '" text-anchor="end">' + gapText(maxGap) + '</text></svg>';
  return '<p>The pick was the fastest engine in <b>' + first + ' of ' + stats.length + '</b> graph/provider pairs; the ' + worst.length + ' largest gaps (pick time / best time):</p>' + s;
}

function barsChart(rows) {
  var timed = rows.filter(function (r) { return isnum(r.med); });
  if (!timed.length) return '';
  var best = timed.filter(function (r) { return r.st === 'success'; }).reduce(function (a, b) { return !a || b.med < a.med ? b : a; }, null);
  // Scaled to the medians: one outlier-stretched CI (a descheduled thread on a busy host) must not
  // squash every bar; whiskers past the edge are clipped.
  var max = Math.max.apply(null, timed.map(function (r) { return r.med; })) * 1.35;
  var clip = function (v) { return Math.min(v, max); };
  var W = 600, rowH = 18, L = 200, R = 130, H = timed.length * rowH + 30;
  var X = function (v) { return L + (W - L - R) * v / max; };
  var s = '<svg class="chart bars" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
  timed.forEach(function (r, i) {
    var y = 4 + i * rowH, mid = y + rowH / 2;
    s += '<text x="' + (L - 6) + '" y="' + (y + 12) + '" text-anchor="end">' + esc(shorten(r.p + ' ' + r.e, 30)) + (r.pick ? ' \u2605' : '') + '</text>';
    s += '<rect class="bar' + (r.pick ? ' pick' : '') + (r === best ? ' best' : '') + '" x="' + L + '" y="' + (y + 3) + '" width="' + Math.max(1, X(r.med) - L).toFixed(1) + '" height="' + (rowH - 6) + '"><title>' + esc(r.e + ' ' + r.plan + ': median ' + fmtMs(r.med) + ' [' + fmtMs(r.lo) + ', ' + fmtMs(r.hi) + '] n=' + r.n + (r.st !== 'success' ? ' ' + r.st : '')) + '</title></rect>';
    if (isnum(r.lo) && isnum(r.hi)) s += '<line class="whisker" x1="' + X(clip(r.lo)).toFixed(1) + '" x2="' + X(clip(r.hi)).toFixed(1) + '" y1="' + mid + '" y2="' + mid + '"/><line class="whisker" x1="' + X(clip(r.lo)).toFixed(1) + '" x2="' + X(clip(r.lo)).toFixed(1) + '" y1="' + (mid - 4) + '" y2="' + (mid + 4) + '"/>' + (r.hi <= max ? '<line class="whisker" x1="' + X(r.hi).toFixed(1) + '" x2="' + X(r.hi).toFixed(1) + '" y1="' + (mid - 4) + '" y2="' + (mid + 4) + '"/>' : '');
    s += '<text x="' + (X(clip(isnum(r.hi) ? r.hi : r.med)) + 4).toFixed(1) + '" y="' + (y + 12) + '">' + fmtMs(r.med) + (isnum(r.hi) && r.hi > max ? ' (CI to ' + fmtMs(r.hi) + ')' : '') + '</text>';
  });
  var yb = timed.length * rowH + 8;
  s += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + yb + '" y2="' + yb + '"/><text x="' + L + '" y="' + (yb + 14) + '">0</text><text x="' + (W - R) + '" y="' + (yb + 14) + '" text-anchor="end">' + fmtMs(max) + '</text></svg>';
  return '<div><h3>Median time per engine, 95% CI (\u2605 / orange: the heuristic\'s pick; green outline: fastest)</h3>' + s + '</div>';
}

function oracleChart(rows) {
  var od = rows.filter(function (r) { return r.od && isnum(r.od.s); });
  if (!od.length) return '';
  var lo = Math.min(0.9, Math.min.apply(null, od.map(function (r) { return isnum(r.od.lo) ? r.od.lo : r.od.s; })));
  var hi = Math.max(1.1, Math.max.apply(null, od.map(function (r) { return isnum(r.od.hi) ? r.od.hi : r.od.s; })));
  var W = 420, rowH = 18, L = 150, R = 60, H = od.length * rowH + 30;
  var X = function (v) { return L + (W - L - R) * (v - lo) / (hi - lo); };
  var s = '<svg class="chart oracle" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
  s += '<line class="one" x1="' + X(1) + '" x2="' + X(1) + '" y1="0" y2="' + (H - 22) + '"/>';
  od.forEach(function (r, i) {
    var y = 4 + i * rowH + rowH / 2;
    s += '<text x="' + (L - 6) + '" y="' + (y + 4) + '" text-anchor="end">' + esc(shorten(r.e, 22)) + '</text>';
    if (isnum(r.od.lo) && isnum(r.od.hi)) s += '<line class="whisker" x1="' + X(r.od.lo).toFixed(1) + '" x2="' + X(r.od.hi).toFixed(1) + '" y1="' + y + '" y2="' + y + '"/>';
    s += '<circle class="' + (r.od.sig ? 'sig' : 'nsig') + '" cx="' + X(r.od.s).toFixed(1) + '" cy="' + y + '" r="4"><title>' + esc('oracle plan ' + r.od.plan + ': speedup ' + fmtX(r.od.s) + ' [' + fmtX(r.od.lo) + ', ' + fmtX(r.od.hi) + ']' + (r.od.sig ? ' significant' : ' not significant')) + '</title></circle>';
    s += '<text x="' + (W - R + 4) + '" y="' + (y + 4) + '">' + fmtX(r.od.s) + '\u00d7</text>';
  });
  var yb = H - 22;
  s += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + yb + '" y2="' + yb + '"/><text x="' + L + '" y="' + (yb + 14) + '">' + lo.toFixed(2) + '</text><text x="' + X(1) + '" y="' + (yb + 14) + '" text-anchor="middle">1</text><text x="' + (W - R) + '" y="' + (yb + 14) + '" text-anchor="end">' + hi.toFixed(2) + '</text></svg>';
  return '<div><h3>Oracle gap: heuristic plan time / tuned plan time, 95% CI (green: significant)</h3>' + s + '</div>';
}

function samplesChart(rows) {
  var sr = rows.filter(function (r) { return r.samples && r.samples.length; });
  if (!sr.length) return '';
  var all = []; sr.forEach(function (r) { all = all.concat(r.samples); });
  var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all); if (hi <= lo) hi = lo * 1.01 + 1e-9;
  var W = 480, rowH = 18, L = 150, R = 20, H = sr.length * rowH + 30;
  var X = function (v) { return L + (W - L - R) * (v - lo) / (hi - lo); };
  var s = '<svg class="chart samples" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
  sr.forEach(function (r, i) {
    var y = 4 + i * rowH;
    s += '<text x="' + (L - 6) + '" y="' + (y + 12) + '" text-anchor="end">' + esc(shorten(r.e, 22)) + '</text>';
    r.samples.forEach(function (v) { s += '<line class="tick" x1="' + X(v).toFixed(1) + '" x2="' + X(v).toFixed(1) + '" y1="' + (y + 3) + '" y2="' + (y + rowH - 3) + '"/>'; });
    if (isnum(r.med)) s += '<line class="medmark" x1="' + X(r.med).toFixed(1) + '" x2="' + X(r.med).toFixed(1) + '" y1="' + (y + 1) + '" y2="' + (y + rowH - 1) + '"/>';
  });
  var yb = H - 22;
  s += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + yb + '" y2="' + yb + '"/><text x="' + L + '" y="' + (yb + 14) + '">' + fmtMs(lo) + '</text><text x="' + (W - R) + '" y="' + (yb + 14) + '" text-anchor="end">' + fmtMs(hi) + '</text></svg>';
  return '<div><h3>Saved samples (one tick each; red: median)</h3>' + s + '</div>';
}

function renderRun(run) {
  var providers = [];
  run.rows.forEach(function (r) { if (providers.indexOf(r.p) < 0) providers.push(r.p); });
  var m = run.meta, vs = Object.keys(m.versions || {}).map(function (k) { return k + ' ' + m.versions[k]; }).join(', ');
  el('runmeta').textContent = run.path + ' \u2014 ' + (m.timestamp || '') + ' \u2014 ' + (m.gpu || m.cpu || '') + ' on ' + (m.host || '?') + ' \u2014 ' + vs + ' \u2014 cache ' + (m.cache_mode || '?') + (run.complete ? '' : ' \u2014 INCOMPLETE RUN');
  var s = run.summary, stats = pickStats(run);
  var kp = [['graphs', s.graphs, ''], ['rows', s.rows, ''], ['passed', s.passed, 'good'], ['failed validation', s.failed, s.failed ? 'bad' : ''], ['errors', s.errors + s.graph_errors, s.errors + s.graph_errors ? 'bad' : ''], ['skipped', s.skipped, ''],
    ['pick is fastest', stats.filter(function (x) { return x.rank === 1; }).length + ' / ' + stats.length, '']];
  el('kpis').innerHTML = kp.map(function (k) { return '<div class="card"><div class="muted">' + esc(k[0]) + '</div><div class="kpi ' + k[2] + '">' + esc(k[1]) + '</div></div>'; }).join('');
  el('roofline').innerHTML = roofline(run, providers);
  el('rankchart').innerHTML = rankChart(stats);
  var byGraph = run.graphs.map(function () { return []; });
  run.rows.forEach(function (r) { byGraph[r.g].push(r); });
  function drawGraphs() {
    var q = el('graphfilter').value.toLowerCase();
    var h = '';
    run.graphs.forEach(function (g, gi) {
      var line = (g.name + ' ' + g.path + ' ' + g.dt + ' ' + (g.ops || []).join(' ')).toLowerCase();
      if (q && line.indexOf(q) < 0) return;
      var rows = byGraph[gi];
      var sub = (g.dt || '') + ' ' + (g.ops || []).join('+') + ' \u2014 ' + fmtSi(g.flops, 'FLOP') + ', ' + fmtSi(g.bytes, 'B') + ' \u2014 ' + rows.length + ' rows' + (g.status !== 'ok' ? ' \u2014 ' + g.status + ' ' + g.error : '');
      h += '<details class="graph" data-g="' + gi + '"' + (gi < 12 ? ' open' : '') + '><summary>' + esc(g.name) + '<span class="sub">' + esc(sub) + '</span></summary><div class="charts">' + barsChart(rows) + oracleChart(rows) + samplesChart(rows) + '</div></details>';
    });
    el('graphlist').innerHTML = h || '<p class="muted">No graph matches.</p>';
  }
  el('graphfilter').oninput = drawGraphs;
  drawGraphs();
  var G = function (r) { return run.graphs[r.g]; };
  table(el('rowtable'), [
    {t: 'graph', v: function (r) { return G(r).name; }},
    {t: 'type', v: function (r) { return G(r).dt; }},
    {t: 'provider', k: 'p'},
    {t: 'engine', k: 'e'},
    {t: 'pick', v: function (r) { return r.pick ? '\u2605' : ''; }},
    {t: 'plan', k: 'plan'},
    {t: 'status', k: 'st', cls: function (r) { return 'st-' + r.st; }},
    {t: 'median', k: 'med', num: 1, f: function (r) { return fmtMs(r.med); }},
    {t: 'CI lo', k: 'lo', num: 1, f: function (r) { return fmtMs(r.lo); }},
    {t: 'CI hi', k: 'hi', num: 1, f: function (r) { return fmtMs(r.hi); }},
    {t: 'n', k: 'n', num: 1},
    {t: 'time', k: 'basis'},
    {t: 'FLOP/s', k: 'flops', num: 1, f: function (r) { return fmtSi(r.flops, ''); }},
    {t: 'B/s', k: 'bps', num: 1, f: function (r) { return fmtSi(r.bps, ''); }},
    {t: '% peak FLOP/s', k: 'pf', num: 1, f: function (r) { return fmtPct(r.pf) + (r.pfb ? ' ' + r.pfb : ''); }},
    {t: '% peak BW', k: 'pb', num: 1, f: function (r) { return fmtPct(r.pb); }},
    {t: 'max rel err', k: 'err', num: 1, f: function (r) { return isnum(r.err) ? r.err.toExponential(1) : '-'; }},
    {t: 'oracle', v: function (r) { return r.od ? r.od.s : null; }, num: 1, f: function (r) { return r.od ? fmtX(r.od.s) + (r.od.sig ? ' sig' : '') : ''; }},
    {t: 'peak source', v: function (r) { return r.peak ? r.peak.src : ''; }},
    {t: 'message', k: 'msg', cls: function () { return 'msg'; }}
  ], run.rows, {});
  var fails = run.rows.filter(function (r) { return r.st !== 'success' && r.st !== 'skipped'; });
  var graphFails = run.graphs.filter(function (g) { return g.status === 'error'; }).map(function (g) { return {g: run.graphs.indexOf(g), p: '-', e: '-', st: 'graph error', msg: g.error}; });
  var skipped = run.rows.filter(function (r) { return r.st === 'skipped'; });
  el('failtable').innerHTML = '';
  var fhost = document.createElement('div'); el('failtable').appendChild(fhost);
  table(fhost, [
    {t: 'graph', v: function (r) { return G(r).name; }}, {t: 'provider', k: 'p'}, {t: 'engine', k: 'e'},
    {t: 'status', k: 'st', cls: function (r) { return 'st-' + r.st.split(' ')[0]; }}, {t: 'message', k: 'msg', cls: function () { return 'msg'; }}
  ], fails.concat(graphFails).concat(skipped), {});
  renderWorkloads(run);
}

// The workload report (report/workload_report.hpp): one bar per op family (with --oracle, the
// share of graphs whose pick is significantly beaten; without, the family's share of the model
// time) and the table of every group.
function workloadBars(p) {
  var fam = p.groups.filter(function (g) { return g.kind === 'family'; });
  var all = p.groups[0];
  if (!fam.length) return '';
  var W = 860, rowH = 18, L = 150, R = 380, H = fam.length * rowH + 24;
  var X = function (v) { return L + (W - L - R) * Math.max(0, Math.min(1, v)); };
  var s = '<svg class="chart workload" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '">';
  fam.forEach(function (g, i) {
    var y = 4 + i * rowH, o = g.oracle;
    var v = o ? o.share_beaten : (all.pick_total_ms > 0 ? g.pick_total_ms / all.pick_total_ms : 0);
    var label = o ? fmtPct(o.share_beaten) + ' of ' + o.graphs_judged + ' beaten, geomean ' + (isnum(o.geomean_gap) ? fmtX(o.geomean_gap) : '-') + ', saves ' + fmtPct(o.time_saved_share)
                  : fmtPct(v) + ' of model time, ' + g.graphs + ' graphs';
    s += '<text x="' + (L - 6) + '" y="' + (y + 12) + '" text-anchor="end">' + esc(g.name) + '</text>';
    s += '<rect class="bar' + (o && o.graphs_beaten ? ' pick' : '') + '" x="' + L + '" y="' + (y + 3) + '" width="' + Math.max(1, X(v) - L).toFixed(1) + '" height="' + (rowH - 6) + '"><title>' + esc(g.name + ': ' + label) + '</title></rect>';
    s += '<text x="' + (X(v) + 4).toFixed(1) + '" y="' + (y + 12) + '">' + esc(label) + '</text>';
  });
  var yb = fam.length * rowH + 8;
  s += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + yb + '" y2="' + yb + '"/><text x="' + L + '" y="' + (yb + 14) + '">0</text><text x="' + (W - R) + '" y="' + (yb + 14) + '" text-anchor="end">100%</text></svg>';
  return s;
}

function renderWorkloads(run) {
  var w = run.workload || [];
  el('workloads').style.display = w.length ? '' : 'none';
  el('navworkloads').style.display = w.length ? '' : 'none';
  el('workloadbody').innerHTML = '';
  w.forEach(function (p) {
    var box = document.createElement('div');
    box.innerHTML = '<h3>' + esc(p.provider + (p.version ? ' ' + p.version : '')) + (p.oracle ? ': graphs whose pick is significantly beaten (graph regret, paired), per op family' : ': share of the model time (\u03a3 count \u00d7 median) per op family; run --oracle for the heuristic\'s gap') + '</h3>' + workloadBars(p);
    var host = document.createElement('div'); box.appendChild(host);
    el('workloadbody').appendChild(box);
    var O = function (r, k) { return r.oracle ? r.oracle[k] : null; };
    table(host, [
      {t: 'group', v: function (r) { return r.kind === 'all' ? 'all' : r.kind + ' ' + r.name; }},
      {t: 'graphs', k: 'graphs', num: 1}, {t: 'layers', k: 'layers', num: 1}, {t: 'untimed', k: 'graphs_untimed', num: 1},
      {t: 'model ms (pick)', k: 'pick_total_ms', num: 1, f: function (r) { return fmtMs(r.pick_total_ms); }},
      {t: 'model ms (best)', k: 'best_total_ms', num: 1, f: function (r) { return fmtMs(r.best_total_ms); }},
      {t: 'judged', v: function (r) { return O(r, 'graphs_judged'); }, num: 1},
      {t: 'beaten', v: function (r) { return O(r, 'graphs_beaten'); }, num: 1},
      {t: 'share beaten', v: function (r) { return O(r, 'share_beaten'); }, num: 1, f: function (r) { return r.oracle ? fmtPct(r.oracle.share_beaten) : '-'; }},
      {t: 'geomean gap', v: function (r) { return O(r, 'geomean_gap'); }, num: 1, f: function (r) { return fmtX(O(r, 'geomean_gap')); }},
      {t: 'worst gap', v: function (r) { return O(r, 'worst_gap'); }, num: 1, f: function (r) { return fmtX(O(r, 'worst_gap')); }},
      {t: 'model time saved', v: function (r) { return O(r, 'time_saved_share'); }, num: 1, f: function (r) { return r.oracle ? fmtPct(r.oracle.time_saved_share) : '-'; }},
      {t: 'worst graph', v: function (r) { return O(r, 'worst_graph') || ''; }, cls: function () { return 'msg'; }}
    ], p.groups, {});
  });
}

function renderCompare(c) {
  el('compare').style.display = ''; el('navcompare').style.display = '';
  var s = c.summary;
  var h = '<p><b>A</b> ' + esc(c.a) + '<br><b>B</b> ' + esc(c.b) + '<br>compared by <b>' + esc(c.by) + '</b>; ratio = B time / A time (&gt; 1: B slower)</p>';
  h += '<div class="cards">' + [['compared', s.rows, ''], ['FASTER', s.faster, 'good'], ['SLOWER', s.slower, s.slower ? 'bad' : ''], ['SAME', s.same, ''], ['UNDECIDED', s.undecided, ''], ['broken in B', s.broken, s.broken ? 'bad' : ''], ['geomean B/A', fmtX(s.geomean_ratio), ''], ['regressions', s.regressions, s.regressions ? 'bad' : 'good']]
    .map(function (k) { return '<div class="card"><div class="muted">' + k[0] + '</div><div class="kpi ' + k[2] + '">' + esc(k[1]) + '</div></div>'; }).join('') + '</div>';
  h += '<h3>Conditions that differ' + (c.invalid ? ' (some invalidate the comparison)' : '') + '</h3>';
  h += c.differences.length ? '<table><tr><th>condition</th><th>A</th><th>B</th><th></th></tr>' + c.differences.map(function (d) { return '<tr><td>' + esc(d.condition) + '</td><td class="msg">' + esc(d.a) + '</td><td class="msg">' + esc(d.b) + '</td><td class="' + (d.invalidating ? 'v-SLOWER' : '') + '">' + (d.invalidating ? 'invalidates' : '') + '</td></tr>'; }).join('') + '</table>' : '<p class="muted">none</p>';
  h += '<div id="cmpchart"></div><div id="cmptable"></div>';
  if (c.library_view.length) h += '<h3>Library-version view (' + esc(c.version_changes.join(', ')) + '): the heuristic\'s top pick per graph</h3><div id="libtable"></div>';
  el('comparebody').innerHTML = h;
  var rows = c.rows.filter(function (r) { return r.ratio; }).sort(function (a, b) { return b.ratio.ratio - a.ratio.ratio; }).slice(0, 40);
  if (rows.length) {
    var lo = Math.min(0.8, Math.min.apply(null, rows.map(function (r) { return r.ratio.ci95[0]; })));
    var hi = Math.max(1.25, Math.max.apply(null, rows.map(function (r) { return r.ratio.ci95[1]; })));
    var W = 640, rowH = 16, L = 260, R = 110, H = rows.length * rowH + 30;
    var X = logScale(lo, hi, L, W - R);
    var sv = '<svg class="chart compare" width="' + W + '" height="' + H + '" viewBox="0 0 ' + W + ' ' + H + '"><line class="one" x1="' + X(1) + '" x2="' + X(1) + '" y1="0" y2="' + (H - 22) + '"/>';
    rows.forEach(function (r, i) {
      var y = 4 + i * rowH + rowH / 2, v = r.verdict || 'BROKEN';
      var col = v === 'SLOWER' ? '#c0392b' : v === 'FASTER' ? '#1e8449' : v === 'SAME' ? '#2457c5' : '#b7950b';
      sv += '<text x="' + (L - 6) + '" y="' + (y + 4) + '" text-anchor="end">' + esc(shorten(r.graph + ' ' + (r.engine_a === r.engine_b ? r.engine_a : r.engine_a + '\u2192' + r.engine_b), 42)) + '</text>';
      if (r.noise_band > 0) {
        // The verdict's noise band: the interval must clear it to be FASTER or SLOWER.
        var b0 = X(Math.max(lo, 1 / (1 + r.noise_band))), b1 = X(Math.min(hi, 1 + r.noise_band));
        sv += '<rect class="band" x="' + b0.toFixed(1) + '" y="' + (y - 6) + '" width="' + Math.max(0, b1 - b0).toFixed(1) + '" height="12" fill="#999" fill-opacity="0.18"><title>' + esc('noise band \u00b1' + fmtPct(r.noise_band) + ' (' + (r.noise_source || '') + ')') + '</title></rect>';
      }
      sv += '<line class="whisker" x1="' + X(Math.max(lo, r.ratio.ci95[0])).toFixed(1) + '" x2="' + X(Math.min(hi, r.ratio.ci95[1])).toFixed(1) + '" y1="' + y + '" y2="' + y + '"/>';
      sv += '<circle cx="' + X(Math.min(hi, Math.max(lo, r.ratio.ratio))).toFixed(1) + '" cy="' + y + '" r="4" fill="' + col + '"><title>' + esc(v + ' ' + fmtX(r.ratio.ratio) + ' [' + fmtX(r.ratio.ci95[0]) + ', ' + fmtX(r.ratio.ci95[1]) + '] ' + r.ratio.method + ', band ' + fmtPct(r.noise_band) + ' ' + (r.noise_source || '')) + '</title></circle>';
      sv += '<text x="' + (W - R + 4) + '" y="' + (y + 4) + '" class="v-' + v + '">' + fmtX(r.ratio.ratio) + ' ' + v + '</text>';
    });
    var yb = H - 22;
    sv += '<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + yb + '" y2="' + yb + '"/><text x="' + L + '" y="' + (yb + 14) + '">' + lo.toFixed(2) + '</text><text x="' + X(1) + '" y="' + (yb + 14) + '" text-anchor="middle">1</text><text x="' + (W - R) + '" y="' + (yb + 14) + '" text-anchor="end">' + hi.toFixed(2) + '</text></svg>';
    el('cmpchart').innerHTML = '<h3>B/A time ratio with 95% CI (largest first, at most 40); grey: each verdict\'s noise band</h3>' + sv;
  }
  table(el('cmptable'), [
    {t: 'graph', k: 'graph'}, {t: 'provider', k: 'provider'}, {t: 'engine A', k: 'engine_a'}, {t: 'engine B', k: 'engine_b'},
    {t: 'A', k: 'median_a_ms', num: 1, f: function (r) { return fmtMs(r.median_a_ms); }},
    {t: 'B', k: 'median_b_ms', num: 1, f: function (r) { return fmtMs(r.median_b_ms); }},
    {t: 'B/A', v: function (r) { return r.ratio ? r.ratio.ratio : null; }, num: 1, f: function (r) { return r.ratio ? fmtX(r.ratio.ratio) : '-'; }},
    {t: '95% CI', v: function (r) { return r.ratio ? r.ratio.ci95[0] : null; }, f: function (r) { return r.ratio ? '[' + fmtX(r.ratio.ci95[0]) + ', ' + fmtX(r.ratio.ci95[1]) + ']' : ''; }},
    {t: 'method', v: function (r) { return r.ratio ? r.ratio.method : ''; }},
    {t: 'band', k: 'noise_band', num: 1, f: function (r) { return fmtPct(r.noise_band); }},
    {t: 'noise', v: function (r) { return r.noise_source || ''; }},
    {t: 'verdict', v: function (r) { return r.verdict || (r.broken ? 'BROKEN' : ''); }, cls: function (r) { return 'v-' + (r.verdict || (r.broken ? 'BROKEN' : '')); }},
    {t: 'note', k: 'note', cls: function () { return 'msg'; }}
  ], c.rows, {});
  if (c.library_view.length) table(el('libtable'), [
    {t: 'graph', k: 'graph'}, {t: 'provider', k: 'provider'}, {t: 'pick A', k: 'pick_a'}, {t: 'pick B', k: 'pick_b'},
    {t: 'pick changed', v: function (r) { return r.pick_changed ? 'yes' : ''; }},
    {t: 'rank A', k: 'rank_a', num: 1, f: function (r) { return (r.rank_a || '-') + '/' + r.engines_a; }},
    {t: 'rank B', k: 'rank_b', num: 1, f: function (r) { return (r.rank_b || '-') + '/' + r.engines_b; }},
    {t: 'best A', k: 'best_a'}, {t: 'best B', k: 'best_b'},
    {t: 'best changed', v: function (r) { return r.best_changed ? 'yes' : ''; }},
    {t: 'pick B/A', v: function (r) { return r.pick_ratio ? r.pick_ratio.ratio : null; }, num: 1, f: function (r) { return r.pick_ratio ? fmtX(r.pick_ratio.ratio) : '-'; }},
    {t: 'verdict', v: function (r) { return r.pick_verdict || ''; }, cls: function (r) { return 'v-' + (r.pick_verdict || ''); }}
  ], c.library_view, {});
}

try {
  var sel = el('runsel');
  D.runs.forEach(function (r, i) { var o = document.createElement('option'); o.value = i; o.textContent = (i === 0 ? 'A ' : i === 1 ? 'B ' : '') + r.path; sel.appendChild(o); });
  sel.onchange = function () { renderRun(D.runs[Number(sel.value)]); };
  if (D.runs.length) { el('title').textContent = 'dnnbench report \u2014 ' + D.runs[0].path; renderRun(D.runs[0]); }
  if (D.compare) renderCompare(D.compare);
  document.body.setAttribute('data-rendered', 'ok');
} catch (e) {
  document.body.setAttribute('data-error', String(e && e.stack || e));
  throw e;
}
})();
</script>
)PAGE";

}  // namespace dnnbench
