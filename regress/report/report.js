// mxcosim correlation report: renders the JSON embedded in the page with
// Chart.js. Opened with #selftest it checks itself and writes the verdict
// into <pre id="selftest"> (the test suite reads it from a headless browser).
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const tests = data.tests;
  const NA = 'n/a';
  const charts = {};
  let histogram = null;  // the error histogram's bins (labels, counts), for the self-check

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k === 'class') e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (const c of children || []) e.appendChild(c);
    return e;
  }
  function num(v, digits) {
    if (v === null || v === undefined) return NA;
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v)) return String(v);
    // Below 1, three significant digits: a utilisation of 0.0004 or an error of 0.001 % read 0.00.
    if (digits === undefined && Math.abs(v) < 1) return String(Number(v.toPrecision(3)));
    return v.toFixed(Math.abs(v) >= 1000 ? 0 : digits === undefined ? 2 : digits);
  }
  function note(id, text) {
    const n = document.getElementById('note-' + id);
    n.textContent = text;
    n.hidden = false;
    document.getElementById('chart-' + id).parentElement.hidden = true;
  }

  // ---- header, regressions, summary ----
  const run = data.run;
  document.getElementById('run-meta').textContent =
    'suite ' + run.suite + ' \u00b7 revision ' + run.rev + ' \u00b7 run ' + run.label + ' \u00b7 started ' +
    run.started_at + (run.host ? ' on ' + run.host : '') + (run.shard ? ' \u00b7 shards ' + run.shard : '') +
    ' \u00b7 state ' + run.state;

  const reg = document.getElementById('regressions');
  if (data.baseline) {
    const base = 'baseline ' + data.baseline.rev.slice(0, 12) + ' (' + data.baseline.label + ')';
    const n = data.baseline_compared;
    const compared = ', ' + n + ' test' + (n === 1 ? '' : 's') + ' compared';
    // A baseline that shares no test with the run finds no regression in it, whatever the run did.
    if (!n) reg.appendChild(el('div', { class: 'banner bad', id: 'baseline-warning',
      text: 'Nothing compared: no test of this run has a result in ' + base }));
    if (data.regressions.length) {
      reg.appendChild(el('div', { class: 'banner bad', id: 'regression-banner',
        text: data.regressions.length + ' regression' + (data.regressions.length === 1 ? '' : 's') +
              ' against ' + base + compared }));
      const rows = data.regressions.map(r => el('tr', {}, [
        el('td', {}, [el('code', { text: r.test })]), el('td', { text: r.what }),
        el('td', { text: r.baseline }), el('td', { text: r.current })]));
      reg.appendChild(el('table', { id: 'regression-table' }, [
        el('thead', {}, [el('tr', {}, ['test', 'regressed', 'baseline', 'now'].map(h => el('th', { text: h })))]),
        el('tbody', {}, rows)]));
    } else {
      reg.appendChild(el('div', { class: n ? 'banner good' : 'banner none',
        text: 'No regressions against ' + base + compared }));
    }
  } else {
    reg.appendChild(el('div', { class: 'banner none', text: 'No baseline: ' + data.baseline_note }));
  }

  const s = data.summary;
  const cards = [['total', s.total], ['pass', s.pass], ['fail', s.fail], ['error', s.error], ['skipped', s.skipped]];
  if (s.planned && s.planned !== s.total) cards.push(['planned', s.planned]);
  // Counted among the errors above; said apart so an interrupted run is seen as one.
  if (s.not_run) cards.push(['not run', s.not_run]);
  document.getElementById('summary').appendChild(el('div', { class: 'cards' }, cards.map(c =>
    el('div', { class: 'card ' + c[0].replace(' ', '-') }, [el('div', { class: 'n', text: String(c[1]) }),
                                                          el('div', { text: c[0] })]))));

  // ---- charts ----
  const common = { animation: false, responsive: true, maintainAspectRatio: false };
  const withModel = tests.filter(t => t.cycles_model !== null && t.cycles_rtl !== null);
  if (withModel.length === 0) {
    // Model cycles alone (`mxcosim model` tests) are no correlation either: there are no RTL cycles.
    const why = tests.some(t => t.cycles_model !== null)
      ? 'No RTL cycles: the tests that report cycles.model report no cycles.rtl (the model alone), so there is ' +
        'nothing to correlate.'
      : 'No model data: no test in this run reports cycles.model, so there is nothing to correlate.';
    note('scatter', why);
    note('hist', why);
  } else {
    const pts = withModel.map(t => ({ x: t.cycles_rtl, y: t.cycles_model, id: t.id }));
    const hi = Math.max(...pts.map(p => Math.max(p.x, p.y)));
    charts.scatter = new Chart(document.getElementById('chart-scatter'), {
      type: 'scatter',
      data: { datasets: [
        { label: 'tests', data: pts, backgroundColor: 'rgba(33,102,172,0.7)' },
        { label: 'model = RTL', data: [{ x: 0, y: 0 }, { x: hi, y: hi }], type: 'line',
          borderColor: '#999', borderDash: [4, 4], pointRadius: 0 }] },
      options: Object.assign({}, common, {
        scales: { x: { title: { display: true, text: 'RTL cycles' } },
                  y: { title: { display: true, text: 'model cycles' } } },
        plugins: { tooltip: { callbacks: { label: c => (c.raw.id || '') + ' (' + c.raw.x + ', ' + c.raw.y + ')' } } }
      })
    });
    // A test with 0 RTL cycles has no error (null): it is in the scatter, not here.
    const errs = withModel.map(t => t.error_pct).filter(e => e !== null);
    if (errs.length === 0) {
      note('hist', 'No model error: every test with model cycles has 0 RTL cycles.');
    } else {
      const lo = Math.min(...errs), top = Math.max(...errs);
      // One bin centred on the value when every error is the same.
      const bins = top > lo ? 20 : 1, width = top > lo ? (top - lo) / bins : 1;
      const start = top > lo ? lo : lo - width / 2;
      const counts = new Array(bins).fill(0);
      for (const e of errs) counts[Math.min(bins - 1, Math.floor((e - start) / width))]++;
      histogram = { labels: counts.map((_, i) => (start + (i + 0.5) * width).toFixed(2)), counts: counts };
      charts.hist = new Chart(document.getElementById('chart-hist'), {
        type: 'bar',
        data: { labels: histogram.labels,
                datasets: [{ label: 'tests', data: counts, backgroundColor: 'rgba(214,96,77,0.8)' }] },
        options: Object.assign({}, common, {
          scales: { x: { title: { display: true, text: 'model error % (bin centre)' } },
                    y: { title: { display: true, text: 'tests' }, beginAtZero: true } } })
      });
    }
  }

  const MAX_BARS = 200;
  const withUtil = tests.filter(t => t.utilisation !== null || t.bandwidth_gbps !== null);
  if (withUtil.length === 0) {
    note('util', 'No utilisation or bandwidth data in these results.');
  } else {
    const shown = withUtil.slice(0, MAX_BARS);
    charts.util = new Chart(document.getElementById('chart-util'), {
      type: 'bar',
      data: { labels: shown.map(t => t.id),
              datasets: [{ label: 'utilisation', data: shown.map(t => t.utilisation), yAxisID: 'y',
                           backgroundColor: 'rgba(67,147,195,0.8)' },
                         { label: 'bandwidth GB/s', data: shown.map(t => t.bandwidth_gbps), yAxisID: 'y2',
                           backgroundColor: 'rgba(244,165,130,0.8)' }] },
      options: Object.assign({}, common, {
        scales: { x: { ticks: { display: shown.length <= 30 } },
                  y: { position: 'left', beginAtZero: true, title: { display: true, text: 'utilisation' } },
                  y2: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
                        title: { display: true, text: 'GB/s' } } } })
    });
    if (withUtil.length > MAX_BARS) {
      const n = document.getElementById('note-util');
      n.textContent = 'First ' + MAX_BARS + ' of ' + withUtil.length + ' tests; every value is in the table.';
      n.hidden = false;
    }
  }

  if (data.trend.length < 2) {
    note('trend', 'Only one run of this suite in the database: the trend starts with the next run.');
  } else {
    charts.trend = new Chart(document.getElementById('chart-trend'), {
      type: 'line',
      data: { labels: data.trend.map(r => r.label + ' ' + r.rev.slice(0, 7)),
              datasets: [
                { label: 'pass rate %', yAxisID: 'y', borderColor: '#2e7d32', data: data.trend.map(r => {
                  const n = r.pass + r.fail + r.error; return n ? 100 * r.pass / n : null; }) },
                { label: 'mean |model error| %', yAxisID: 'y2', borderColor: '#c62828',
                  data: data.trend.map(r => r.mean_abs_error_pct) }] },
      options: Object.assign({}, common, {
        scales: { y: { min: 0, max: 100, title: { display: true, text: 'pass %' } },
                  y2: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
                        title: { display: true, text: '|error| %' } } } })
    });
  }

  // ---- table ----
  const columns = [
    ['id', 'test', 's'], ['status', 'status', 's'], ['seed', 'seed', 's'], ['cycles_rtl', 'RTL cycles', 'n'],
    ['cycles_model', 'model cycles', 'n'], ['error_pct', 'error %', 'n'], ['wall_seconds', 'wall s', 'n'],
    ['speed_cps', 'cycles/s', 'n'], ['utilisation', 'util.', 'n'], ['bandwidth_gbps', 'GB/s', 'n'],
    ['message', 'message / reproduce', 's']];
  const thead = document.querySelector('#tests thead');
  const tbody = document.querySelector('#tests tbody');
  const filterBox = document.getElementById('filter');
  const statusBox = document.getElementById('status-filter');
  let sortKey = null, sortDir = 1;
  // Ties keep the data's order: the suite's, then the tests that did not run
  // (which have no suite index).
  const order = new Map(tests.map((t, i) => [t, i]));
  thead.appendChild(el('tr', {}, columns.map(c => el('th', { 'data-key': c[0], text: c[1] }))));

  function compare(a, b, key, type) {
    const x = a[key], y = b[key];
    const xn = x === null || x === undefined || x === '', yn = y === null || y === undefined || y === '';
    if (xn || yn) return xn === yn ? order.get(a) - order.get(b) : (xn ? 1 : -1);  // missing values last
    const d = type === 'n' ? x - y : String(x).localeCompare(String(y), 'en', { numeric: true });
    return d !== 0 ? d * sortDir : order.get(a) - order.get(b);
  }
  function visible() {
    const q = filterBox.value.trim().toLowerCase();
    const st = statusBox.value;
    let rows = tests.filter(t => (!st || t.status === st) &&
      (!q || (t.id + ' ' + t.message + ' ' + t.tags).toLowerCase().includes(q)));
    if (sortKey) {
      const type = columns.find(c => c[0] === sortKey)[2];
      rows = rows.slice().sort((a, b) => compare(a, b, sortKey, type));
    }
    return rows;
  }
  function render() {
    const rows = visible();
    const frag = document.createDocumentFragment();
    for (const t of rows) {
      const tr = el('tr', { class: 'status-' + t.status, 'data-id': t.id });
      for (const c of columns) {
        if (c[0] === 'message') {
          const td = el('td', { class: 'msg' });
          if (t.message) td.appendChild(el('div', { text: t.message }));
          if (t.status !== 'pass' && t.command) td.appendChild(el('code', { text: t.command }));
          tr.appendChild(td);
        } else {
          const v = t[c[0]];
          tr.appendChild(el('td', { class: c[2] === 'n' ? 'num' : '', text: c[2] === 'n' ? num(v) : (v || NA) }));
        }
      }
      frag.appendChild(tr);
    }
    tbody.replaceChildren(frag);
    document.getElementById('shown-count').textContent = rows.length + ' of ' + tests.length + ' tests';
    for (const th of thead.querySelectorAll('th')) {
      th.classList.toggle('sorted-asc', th.dataset.key === sortKey && sortDir === 1);
      th.classList.toggle('sorted-desc', th.dataset.key === sortKey && sortDir === -1);
    }
  }
  thead.addEventListener('click', e => {
    const key = e.target.dataset && e.target.dataset.key;
    if (!key) return;
    sortDir = key === sortKey ? -sortDir : 1;
    sortKey = key;
    render();
  });
  filterBox.addEventListener('input', render);
  statusBox.addEventListener('change', render);
  render();

  // ---- exports ----
  function download(name, type, text) {
    const a = el('a', { href: URL.createObjectURL(new Blob([text], { type: type })), download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
  }
  function csv() {
    const esc = v => { const s = v === null || v === undefined ? '' : String(v);
                       return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s; };
    const keys = columns.map(c => c[0]).concat(['command']);
    return [keys.join(',')].concat(visible().map(t => keys.map(k => esc(t[k])).join(','))).join('\n') + '\n';
  }
  // The report's data with the table's visible rows, in their order, as its tests.
  function visibleJson() {
    return JSON.stringify(Object.assign({}, data, { tests: visible() }), null, 1);
  }
  document.getElementById('export-csv').addEventListener('click', () =>
    download(run.suite + '-' + run.label + '.csv', 'text/csv', csv()));
  document.getElementById('export-json').addEventListener('click', () =>
    download(run.suite + '-' + run.label + '.json', 'application/json', visibleJson()));

  // ---- self-check (only with #selftest) ----
  if (location.hash !== '#selftest') return;
  const out = { errors: window.__reportErrors.slice(), charts: {}, checks: {} };
  for (const id of ['scatter', 'hist', 'util', 'trend']) {
    const canvas = document.getElementById('chart-' + id);
    let painted = 0;
    if (charts[id] && canvas.width > 0 && canvas.height > 0) {
      const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
    }
    out.charts[id] = { chart: !!charts[id], painted_pixels: painted,
                       note: document.getElementById('note-' + id).hidden ? '' :
                             document.getElementById('note-' + id).textContent };
  }
  const ids = () => Array.from(tbody.querySelectorAll('tr')).map(tr => tr.dataset.id);
  const column = key => visible().map(t => t[key]);
  thead.querySelector('th[data-key="cycles_rtl"]').click();
  const asc = column('cycles_rtl').filter(v => v !== null);
  out.checks.sort_numeric_asc = asc.every((v, i) => i === 0 || asc[i - 1] <= v);
  thead.querySelector('th[data-key="cycles_rtl"]').click();
  const desc = column('cycles_rtl').filter(v => v !== null);
  out.checks.sort_numeric_desc = desc.every((v, i) => i === 0 || desc[i - 1] >= v);
  filterBox.value = tests.length ? tests[0].id : '';
  filterBox.dispatchEvent(new Event('input'));
  out.checks.filter_text_rows = ids().length;
  filterBox.value = '';
  filterBox.dispatchEvent(new Event('input'));
  // Leave a state the caller checks from the DOM: failures, ids descending.
  statusBox.value = 'fail';
  statusBox.dispatchEvent(new Event('change'));
  thead.querySelector('th[data-key="id"]').click();
  thead.querySelector('th[data-key="id"]').click();
  out.final_rows = ids();
  // The downloads hold the visible rows, in the table's order.
  out.export_json_ids = JSON.parse(visibleJson()).tests.map(t => t.id);
  out.export_csv_ids = csv().trim().split('\n').slice(1).map(line => line.split(',')[0]);
  out.histogram = histogram;
  out.errors = window.__reportErrors.slice();
  const pre = document.getElementById('selftest');
  pre.textContent = JSON.stringify(out);
  pre.hidden = false;
})();
