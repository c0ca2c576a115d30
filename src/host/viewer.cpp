#include "host/viewer.h"

#include "base/error.h"

namespace qgpu::host {

namespace {

using ojson = nlohmann::ordered_json;

// Text for an HTML text node or attribute.
std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON safe inside <script type="application/json">: '<', '>' and '&' occur only inside
// strings, so their \u escapes keep it the same JSON while no "</script>" or "<!--" can
// end the block early.
std::string script_json(const ojson& j) {
  const std::string text = j.dump(-1, ' ', false, ojson::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 64);
  for (char c : text) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr const char* kHead = R"VIEWER(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>)VIEWER";

// Collects the page's errors (uncaught exceptions, rejected promises, console.error) in
// window.__errors and in #errors, which a test reads back from the DOM. First in the page,
// so it also sees a syntax error in the main script.
constexpr const char* kErrorScript = R"VIEWER(<script>
window.__errors = [];
window.__showErrors = function () {
  var e = document.getElementById('errors');
  if (!e) return;
  e.textContent = window.__errors.join('\n');
  e.setAttribute('data-count', String(window.__errors.length));
  if (window.__errors.length) e.removeAttribute('hidden');
};
window.__noteError = function (text) { window.__errors.push(String(text)); window.__showErrors(); };
window.onerror = function (msg, src, line, col) { window.__noteError(msg + ' (line ' + line + ':' + col + ')'); };
window.addEventListener('unhandledrejection', function (ev) { window.__noteError('unhandled rejection: ' + ev.reason); });
(function () {
  var original = console.error;
  console.error = function () {
    window.__noteError('console.error: ' + Array.prototype.join.call(arguments, ' '));
    return original.apply(console, arguments);
  };
})();
document.addEventListener('DOMContentLoaded', window.__showErrors);
</script>
)VIEWER";

constexpr const char* kStyle = R"VIEWER(<style>
* { box-sizing: border-box; }
html, body { height: 100%; }
body { margin: 0; display: flex; flex-direction: column; font: 13px/1.35 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1d1d1f; background: #f6f7f9; }
.mono, table.grid, .rec, #memory, #outputs, #regs { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; }
header { padding: 6px 12px; background: #1f2a44; color: #fff; display: flex; gap: 18px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0; }
header .sub { color: #c8d0e0; }
#errors { margin: 0; padding: 6px 12px; background: #b71c1c; color: #fff; white-space: pre-wrap; }
#timeline { display: flex; flex-wrap: wrap; gap: 2px; padding: 5px 12px; background: #fff; border-bottom: 1px solid #d8dbe0; max-height: 112px; overflow-y: auto; }
.rec { font-size: 10.5px; line-height: 1.25; padding: 1px 4px; border-radius: 3px; cursor: pointer; border: 1px solid transparent; background: #eceff3; white-space: nowrap; }
.rec.k-sched { background: #d6e4ff; }
.rec.k-v { background: #d8f3df; }
.rec.k-pred, .rec.k-br { background: #ffe7c4; }
.rec.k-end { background: #cfd3d8; }
.rec.nolens { opacity: 0.45; }
.rec.sel { border-color: #c62828; background: #ffd54f; font-weight: 700; }
#app { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(0, 1fr) 350px; }
#gridwrap { overflow: auto; min-width: 0; border-right: 1px solid #d8dbe0; background: #fff; }
table.grid { border-collapse: separate; border-spacing: 0; font-size: 10px; }
table.grid th, table.grid td { padding: 1px 2px; border-right: 1px solid #eceef1; border-bottom: 1px solid #eceef1; white-space: nowrap; }
table.grid thead th { position: sticky; z-index: 2; background: #eef1f6; font-weight: 600; text-align: center; }
table.grid thead tr.names th { top: 0; height: 30px; white-space: pre; line-height: 1.1; }
table.grid thead tr.heat th { top: 30px; height: 18px; }
table.grid th.fname { position: sticky; left: 0; z-index: 1; background: #f7f8fa; text-align: left; font-weight: 600; min-width: 60px; }
table.grid thead th.fname { z-index: 3; }
table.grid tr.group th span { position: sticky; left: 6px; }
table.grid tr.group th { text-align: left; background: #e3e8f2; color: #28344f; font-weight: 600; padding: 3px 6px; font-family: system-ui, sans-serif; }
table.grid td { max-width: 42px; min-width: 18px; overflow: hidden; text-overflow: ellipsis; background: #f1f2f4; color: #222; }
table.grid td.alive { background: #fff; }
table.grid td.changed { background: #fff3b8; }
table.grid td.born { box-shadow: inset 3px 0 0 #2e9d4f; }
table.grid td.cleared { color: #c62828; text-align: center; background: repeating-linear-gradient(45deg, #fde4e4, #fde4e4 3px, #fff 3px, #fff 6px); }
table.grid td.invalid { background: #e53935; color: #fff; font-weight: 700; }
table.grid tr:hover td.alive { background: #eef5ff; }
table.grid tr.focus th.fname { background: #ffd54f; }
table.grid tr.focus td { border-bottom-color: #e0a800; border-top: 1px solid #e0a800; }
table.grid th.heatcell { font-weight: 700; color: #3b1d00; }
#side { overflow: auto; padding: 8px 12px; }
#side h2 { font-size: 15px; margin: 2px 0 6px; }
#side h3 { font-size: 12px; margin: 12px 0 4px; text-transform: uppercase; letter-spacing: 0.04em; color: #555; }
#side p { margin: 4px 0; }
.note { color: #666; font-size: 11.5px; }
.legend span { display: inline-block; padding: 0 5px; margin-right: 4px; border: 1px solid #ddd; font-size: 11px; }
.legend .l-born { box-shadow: inset 3px 0 0 #2e9d4f; background: #fff; }
.legend .l-cleared { color: #c62828; background: #fde4e4; }
.legend .l-invalid { background: #e53935; color: #fff; }
.legend .l-changed { background: #fff3b8; }
.legend .l-dead { background: #f1f2f4; }
table.small { border-collapse: collapse; font-size: 11px; }
table.small th, table.small td { border: 1px solid #e0e3e8; padding: 1px 5px; text-align: right; }
table.small th { background: #eef1f6; }
#regs tr.inactive td { color: #aaa; }
#outputs td.name { text-align: left; font-weight: 700; }
#memory { display: grid; grid-template-columns: repeat(8, 1fr); gap: 1px; font-size: 10px; }
#memory div { background: #fff; border: 1px solid #e6e8ec; padding: 0 2px; text-align: right; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#memory div.empty { color: #bbb; background: #f4f5f7; }
#memory div .addr { color: #99a; float: left; margin-right: 2px; }
</style>
</head>
)VIEWER";

constexpr const char* kBody = R"VIEWER(<body data-ready="0">
<header>
  <h1 id="title"></h1>
  <span class="sub" id="summary"></span>
  <span class="sub">&larr; &rarr; move between records; click one to select it</span>
</header>
<pre id="errors" data-count="0" hidden></pre>
<nav id="timeline" aria-label="records"></nav>
<main id="app" data-selected-record="">
  <div id="gridwrap">
    <table class="grid" id="grid">
      <thead>
        <tr class="names" id="grid-names"><th class="fname">field</th></tr>
        <tr class="heat" id="heat" title="fields whose value differs from the sublayer before, at the selected record's position"><th class="fname">changed</th></tr>
      </thead>
      <tbody id="grid-body"></tbody>
    </table>
  </div>
  <aside id="side">
    <h2 id="selected" data-record="" data-position=""></h2>
    <p id="selected-detail" class="note"></p>
    <p class="legend"><span class="l-born">born</span><span class="l-cleared">&times; cleared</span><span
      class="l-invalid">invalid</span><span class="l-changed">changed</span><span class="l-dead">not alive</span></p>
    <p id="heat-note" class="note">Heat map (the &ldquo;changed&rdquo; row under the sublayer names): for the
      selected record's position, how many fields each sublayer changed compared with the sublayer before it; a
      field written first (born) or cleared there counts too, so the embedding's count is the fields it writes.
      Changed values are yellow in the grid.</p>
    <p id="invalid-count" class="note" data-count="0"></p>
    <h3>step</h3>
    <p id="step" class="mono" data-warp="" data-block="" data-lanes=""></p>
    <h3>register reads (ra, rb, rc per lane)</h3>
    <table class="small" id="regs"></table>
    <p id="fetch" class="note mono"></p>
    <h3>outputs (after the launch)</h3>
    <table class="small" id="outputs"></table>
    <h3>memory (after the launch)</h3>
    <div id="memory"></div>
  </aside>
</main>
)VIEWER";

constexpr const char* kMainScript = R"VIEWER(<script>
(function () {
  'use strict';
  window.__showErrors();
  const data = JSON.parse(document.getElementById('qgpu-data').textContent);
  const map = data.map || {};
  const lens = Array.isArray(data.lens) ? data.lens : [];
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    if (attrs) for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  };
  const has = (o, k) => o !== null && o !== undefined && Object.prototype.hasOwnProperty.call(o, k);

  // The sublayers: the embedding, then each layer's mixer and MLP.
  const layerCount = map.machine && map.machine.layers ? map.machine.layers : 15;
  const sublayers = ['embedding'];
  for (let i = 0; i < layerCount; i++) sublayers.push('L' + i + '.mixer', 'L' + i + '.mlp');
  const subIndex = new Map(sublayers.map((s, i) => [s, i]));
  const layerInfo = new Map((map.layers || []).map((l) => [l.layer, l]));
  const describe = (s) => {
    if (s === 'embedding') return 'the token embedding';
    const m = /^L(\d+)\.(mixer|mlp)$/.exec(s);
    const info = m && layerInfo.get(Number(m[1]));
    if (!info) return s;
    return m[2] === 'mixer' ? 'mixer (' + info.mixer + '): ' + info.holds : 'MLP: ' + info.mlp;
  };

  // The fields in the map's order, grouped by the sublayer that writes them first.
  const fields = (map.fields || []).map((f, order) => ({
    name: f.name, meaning: f.meaning || '', code: f.code && f.code.text ? f.code.text : '',
    dims: f.dims || [0, 0], bornAt: f.born_at || 'embedding', clearedAt: f.cleared_at || null,
    born: subIndex.has(f.born_at) ? subIndex.get(f.born_at) : 0,
    cleared: f.cleared_at && subIndex.has(f.cleared_at) ? subIndex.get(f.cleared_at) : null,
    order: order,
  }));
  const rows = fields.slice().sort((a, b) => a.born - b.born || a.order - b.order);
  const rowTip = (f) => f.name + ': ' + f.meaning + '\ncode: ' + f.code + '\ndims ' + f.dims[0] + '..' +
    (f.dims[0] + f.dims[1] - 1) + '\nwritten first by ' + f.bornAt + '; ' + (f.clearedAt ? 'cleared by ' + f.clearedAt : 'kept');

  // The records and the lens position that generated each.
  const byRecord = new Map();
  for (const p of lens) if (typeof p.record === 'number') byRecord.set(p.record, p);
  let records = Array.isArray(data.records) ? data.records.map(String) : [];
  if (!records.length) for (const [r, p] of byRecord) records[r] = p.output || '';

  // Header.
  const launch = data.launch || {};
  $('title').textContent = 'qgpu lens: ' + (data.kernel || 'kernel');
  document.title = $('title').textContent;
  const parts = [];
  if (launch.grid) parts.push('grid ' + launch.grid.join('x'));
  if (launch.block) parts.push('block ' + launch.block.join('x'));
  parts.push(records.length + ' records');
  if (data.prompt_tokens !== undefined) parts.push(data.prompt_tokens + ' prompt tokens');
  if (data.model) parts.push(data.model + (data.dtype ? ' (' + data.dtype + ')' : ''));
  parts.push(lens.length + ' lens positions');
  $('summary').textContent = parts.join(' \u00b7 ');

  // The timeline: one cell a record.
  const timeline = $('timeline');
  const recCells = records.map((text, i) => {
    const kind = String(text).split(/[\s:]/)[0].replace(/[^a-z0-9]/gi, '') || 'x';
    let label = text;
    let m = /^sched w(\d+) b(\d+)/.exec(text);
    if (m) label = 'w' + m[1] + ' b' + m[2];
    const kindClass = /^v/.test(kind) ? 'v' : kind;
    const p = byRecord.get(i);
    const cell = el('span', {
      'class': 'rec k-' + kindClass + (p ? '' : ' nolens'), 'data-record': i,
      title: '#' + i + ': ' + text + (p ? ' (generated at position ' + p.position + ')' : ' (no lens data)'),
    }, label);
    cell.addEventListener('click', () => select(i));
    timeline.appendChild(cell);
    return cell;
  });

  // The grid's skeleton: header, heat row, a group row per writing sublayer, a row per field.
  const names = $('grid-names'), heatRow = $('heat'), body = $('grid-body');
  const heatCells = sublayers.map((s) => {
    const short = s === 'embedding' ? 'emb' : s.replace('.mixer', '\nmix').replace('.mlp', '\nmlp');
    names.appendChild(el('th', { 'data-sublayer': s, title: s + ': ' + describe(s) }, short));
    const h = el('th', { 'class': 'heatcell', 'data-heat-sublayer': s, 'data-changed': 0 }, '');
    heatRow.appendChild(h);
    return h;
  });
  const cells = new Map();
  let group = null;
  for (const f of rows) {
    if (f.bornAt !== group) {
      group = f.bornAt;
      const tr = el('tr', { 'class': 'group', 'data-group': group });
      const th = el('th', { colspan: sublayers.length + 1, title: describe(group) });
      th.appendChild(el('span', null, 'written first by ' + group + ' \u2014 ' + describe(group)));
      tr.appendChild(th);
      body.appendChild(tr);
    }
    const tr = el('tr', { 'data-field': f.name, title: rowTip(f) });
    tr.appendChild(el('th', { 'class': 'fname', title: rowTip(f) }, f.name));
    const tds = sublayers.map((s) => {
      const td = el('td', { 'data-field': f.name, 'data-sublayer': s });
      tr.appendChild(td);
      return td;
    });
    cells.set(f.name, tds);
    body.appendChild(tr);
  }

  // One position's rows by sublayer index.
  const bySublayer = (p) => {
    const out = sublayers.map(() => null);
    if (p) for (const s of p.sublayers || []) if (subIndex.has(s.sublayer)) out[subIndex.get(s.sublayer)] = s;
    return out;
  };
  // A field's value at its last sublayer where it is alive.
  const lastValue = (subs, name) => {
    for (let i = subs.length - 1; i >= 0; i--) if (subs[i] && has(subs[i].fields, name)) return subs[i].fields[name];
    return undefined;
  };

  function fillGrid(p) {
    const subs = bySublayer(p);
    const changed = sublayers.map(() => 0);
    let invalid = 0;
    for (const f of rows) {
      const tds = cells.get(f.name);
      let prev;
      for (let i = 0; i < sublayers.length; i++) {
        const s = subs[i];
        const v = s && has(s.fields, f.name) ? String(s.fields[f.name]) : undefined;
        const why = s && has(s.invalid, f.name) ? s.invalid[f.name] : null;
        const cls = [];
        if (v !== undefined) cls.push('alive');
        if (i === f.born) cls.push('born');
        if (f.cleared !== null && i === f.cleared) cls.push('cleared');
        if (why) { cls.push('invalid'); invalid++; }
        const differs = i === 0 ? v !== undefined : v !== prev;
        if (differs) changed[i]++;
        if (differs && v !== undefined && prev !== undefined) cls.push('changed');
        const td = tds[i];
        td.className = cls.join(' ');
        td.textContent = v !== undefined ? v : (f.cleared === i ? '\u00d7' : '');
        let tip = rowTip(f) + '\n\nafter ' + sublayers[i] + ': ' + (v !== undefined ? v : (f.cleared === i ? 'cleared' : 'not alive'));
        if (why) tip += '\nINVALID: ' + why;
        td.title = tip;
        prev = v;
      }
    }
    const most = Math.max(1, ...changed);
    heatCells.forEach((h, i) => {
      h.textContent = String(changed[i]);
      h.setAttribute('data-changed', String(changed[i]));
      h.style.background = 'hsl(24, 95%, ' + (97 - 45 * changed[i] / most).toFixed(1) + '%)';
      h.title = sublayers[i] + ': ' + changed[i] + ' field' + (changed[i] === 1 ? '' : 's') + ' changed vs the sublayer before';
    });
    const ic = $('invalid-count');
    ic.setAttribute('data-count', String(invalid));
    ic.textContent = invalid ? invalid + ' invalid code' + (invalid === 1 ? '' : 's') + ' at this position (red cells)' : 'every alive field is a valid code at this position';
  }

  function fillState(p) {
    const subs = bySublayer(p);
    // The step: warp | block / 16 | block % 16 | lane 0..3 in the mask (0) or not (1).
    const stepEl = $('step');
    const step = lastValue(subs, 'step');
    let lanes = [0, 1, 2, 3];
    if (step !== undefined) {
      const d = String(step).split('|').map(Number);
      if (d.length === 7 && d.every((x) => Number.isFinite(x))) {
        const block = d[1] * 16 + d[2];
        lanes = [0, 1, 2, 3].filter((l) => d[3 + l] === 0);
        stepEl.textContent = 'warp ' + d[0] + ' \u00b7 block ' + block + ' \u00b7 lanes {' + lanes.join(',') + '}   (step = ' + step + ')';
        stepEl.setAttribute('data-warp', String(d[0]));
        stepEl.setAttribute('data-block', String(block));
        stepEl.setAttribute('data-lanes', lanes.join(','));
      } else {
        stepEl.textContent = 'step = ' + step + ' (not a valid code)';
        stepEl.setAttribute('data-warp', ''); stepEl.setAttribute('data-block', ''); stepEl.setAttribute('data-lanes', '');
      }
    } else {
      stepEl.textContent = 'no step at this position';
      stepEl.setAttribute('data-warp', ''); stepEl.setAttribute('data-block', ''); stepEl.setAttribute('data-lanes', '');
    }
    // The register file's reads: ra, rb, rc of each lane.
    const regs = $('regs');
    regs.textContent = '';
    const head = el('tr');
    for (const h of ['lane', 'ra', 'rb', 'rc']) head.appendChild(el('th', null, h));
    regs.appendChild(head);
    for (let lane = 0; lane < 4; lane++) {
      const tr = el('tr', { 'data-lane': lane, 'class': lanes.includes(lane) ? '' : 'inactive' });
      tr.appendChild(el('td', null, lane));
      for (const r of ['ra', 'rb', 'rc']) {
        const v = lastValue(subs, r + lane);
        tr.appendChild(el('td', { 'data-reg': r + lane }, v === undefined ? '\u2013' : v));
      }
      regs.appendChild(tr);
    }
    const fetch = ['f_op', 'f_guard', 'f_d', 'f_a', 'f_b', 'f_c', 'f_imm']
      .map((n) => [n, lastValue(subs, n)]).filter((x) => x[1] !== undefined).map((x) => x[0] + '=' + x[1]);
    $('fetch').textContent = fetch.length ? 'fetch (raw codes): ' + fetch.join(' ') : '';
  }

  // The launch's outputs and memory: the report's, after the launch.
  (function fillMachine() {
    const out = $('outputs');
    const outputs = data.outputs || {};
    for (const name of Object.keys(outputs)) {
      const tr = el('tr', { 'data-array': name });
      tr.appendChild(el('td', { 'class': 'name' }, name));
      const values = Array.isArray(outputs[name]) ? outputs[name] : [outputs[name]];
      values.forEach((v, i) => tr.appendChild(el('td', { 'data-index': i }, v === null ? '\u00b7' : v)));
      out.appendChild(tr);
    }
    if (!Object.keys(outputs).length) out.appendChild(el('tr', null, 'no outputs in the report'));
    const mem = $('memory');
    (Array.isArray(data.memory) ? data.memory : []).forEach((w, i) => {
      const d = el('div', { 'data-word': i, 'class': w === null ? 'empty' : '', title: 'word ' + i + ': ' + (w === null ? 'never written' : w) });
      d.appendChild(el('span', { 'class': 'addr' }, i));
      d.appendChild(document.createTextNode(w === null ? '\u00b7' : String(w)));
      mem.appendChild(d);
    });
  })();

  let current = -1;
  function select(i) {
    if (!records.length) return;
    i = Math.max(0, Math.min(records.length - 1, i));
    if (current >= 0 && recCells[current]) recCells[current].classList.remove('sel');
    current = i;
    recCells[i].classList.add('sel');
    recCells[i].scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const p = byRecord.get(i);
    const sel = $('selected');
    sel.textContent = 'record #' + i + ': ' + records[i];
    sel.setAttribute('data-record', String(i));
    sel.setAttribute('data-position', p ? String(p.position) : '');
    $('app').setAttribute('data-selected-record', String(i));
    $('selected-detail').textContent = p
      ? 'generated at token position ' + p.position + ' from the input token \u201c' + p.input + '\u201d; the grid is the residual after every sublayer there'
      : 'the lens kept no position for this record';
    fillGrid(p);
    fillState(p);
  }

  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'ArrowLeft') { select(current - 1); ev.preventDefault(); }
    else if (ev.key === 'ArrowRight') { select(current + 1); ev.preventDefault(); }
  });

  const params = new URLSearchParams(window.location.search);
  const asked = Number.parseInt(params.get('record'), 10);
  select(Number.isFinite(asked) ? asked : 0);
  // ?field=NAME: that field's row marked, its birth cell scrolled into view.
  const focus = params.get('field');
  const focused = focus !== null ? rows.find((f) => f.name === focus) : undefined;
  if (focused) {
    const td = cells.get(focused.name)[focused.born];
    td.parentElement.classList.add('focus');
    td.scrollIntoView({ block: 'center', inline: 'center' });
  }
  document.body.setAttribute('data-ready', '1');
})();
</script>
</body>
</html>
)VIEWER";

}  // namespace

std::string viewer_html(const ojson& report) {
  if (!report.is_object() || !report.contains("lens") || !report["lens"].is_array())
    fail("viewer: the report has no \"lens\" array (the JSON of `qgpu run ... --engine model --lens-json --lens-all --trace`)");
  if (!report.contains("map") || !report["map"].is_object() || !report["map"].contains("fields"))
    fail("viewer: the report has no \"map\" (add lift::machine_map() as \"map\")");
  const std::string kernel = report.contains("kernel") && report["kernel"].is_string() ? report["kernel"].get<std::string>() : "kernel";
  std::string page = kHead;
  page += html_escape("qgpu lens: " + kernel);
  page += "</title>\n";
  page += kErrorScript;
  page += kStyle;
  page += kBody;
  page += "<script type=\"application/json\" id=\"qgpu-data\">";
  page += script_json(report);
  page += "</script>\n";
  page += kMainScript;
  return page;
}

}  // namespace qgpu::host
