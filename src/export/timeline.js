// SPDX-License-Identifier: MIT
// timeline.js - draws the page `trawl timeline` writes. The data is the
// JSON of <script id="trawl-data"> (its format: tl_html.c). Everything is
// drawn on one canvas from the level of detail whose buckets are at most a
// pixel or two wide, so a frame costs about the same at any zoom and for
// any count of events. The lane labels are DOM elements (text to select,
// and what tests look for); window.trawl is the page's handle for scripts.
(function () {
  'use strict';
  const RULER = 24, LABELS = 240;
  const KIND_CPU = 0, KIND_CPU_EV = 1, KIND_SYS = 2, KIND_EV = 3, KIND_CTR = 4;
  const H = { group: 20, cpu: 18, sys: 16, ev: 14, ctr: 32 };

  // ---- the data ----------------------------------------------------------
  const raw = document.getElementById('trawl-data').textContent;
  const D = JSON.parse(raw);
  // the origin has 19 digits: a double would round it, so it is kept as text too
  const originText = (raw.match(/"origin":(-?\d+)/) || [0, '0'])[1];
  const strings = D.strings;
  const threads = new Map();
  for (const [tid, pid, name] of D.threads) threads.set(tid, { tid, pid, name });
  const lanes = D.lanes.map(([kind, id, sub], i) => ({ i, kind, id, sub, lv: [] }));
  const levels = D.levels.map((L) => {
    const lv = { shift: L.shift, q: Math.pow(2, L.shift), details: L.details, count: 0 };
    for (const [li, nums] of L.items) {
      const n = nums.length / 6;
      const a = {
        t0: new Float64Array(n), t1: new Float64Array(n), maxT1: new Float64Array(n),
        a: new Float64Array(n), b: new Float64Array(n), c: new Float64Array(n),
        d: new Float64Array(n), n,
      };
      let t = 0, m = -Infinity;
      for (let k = 0, j = 0; k < n; k++, j += 6) {
        t += nums[j];
        a.t0[k] = t;
        a.t1[k] = t + nums[j + 1];
        m = Math.max(m, a.t1[k]);
        a.maxT1[k] = m;
        a.a[k] = nums[j + 2]; a.b[k] = nums[j + 3]; a.c[k] = nums[j + 4]; a.d[k] = nums[j + 5];
      }
      lanes[li].lv[D.levels.indexOf(L)] = a;
      lv.count += n;
    }
    return lv;
  });
  const END = Math.max(D.end, 1);

  // ---- names, colours, times ----------------------------------------------
  function hash(s) {
    let h = 2166136261;
    s = String(s);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
    return h >>> 0;
  }
  const colourCache = new Map();
  function colour(key, light) {
    const k = key + (light ? '/l' : '');
    let c = colourCache.get(k);
    if (!c) {
      const h = hash(key);
      c = 'hsl(' + (h % 360) + ',' + (50 + (h >> 9) % 25) + '%,' + (light ? 80 : 48 + (h >> 17) % 14) + '%)';
      colourCache.set(k, c);
    }
    return c;
  }
  function pidOf(tid) {
    const t = threads.get(tid);
    return t && t.pid >= 0 ? t.pid : tid;
  }
  function threadLabel(tid) {
    const t = threads.get(tid);
    return (t && t.name ? t.name : '?') + ' ' + tid;
  }
  function fmtDur(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + ' ns';
    if (a < 1e6) return (ns / 1e3).toFixed(3) + ' \u00b5s';
    if (a < 1e9) return (ns / 1e6).toFixed(3) + ' ms';
    return (ns / 1e9).toFixed(3) + ' s';
  }
  // ns from the origin as a clock time (UTC), exact to the ns
  function fmtClock(t) {
    try {
      const ns = BigInt(originText) + BigInt(Math.round(t));
      const s = ns / 1000000000n, frac = ns % 1000000000n;
      const d = new Date(Number(s) * 1000);
      return d.toISOString().slice(11, 19) + '.' + frac.toString().padStart(9, '0');
    } catch (e) {
      return '+' + fmtDur(t);
    }
  }

  // ---- rows: CPUs, then each process with its threads ---------------------
  const groups = [];
  function buildRows() {
    const cpu = { label: 'CPUs', key: 'cpus', rows: [] };
    const procs = new Map();
    const byTid = new Map();
    for (const l of lanes) {
      if (!l.lv.some((a) => a && a.n)) continue;
      if (l.kind === KIND_CPU || l.kind === KIND_CPU_EV) {
        l.label = l.id < 0 ? 'trace (no thread, no CPU)' :
          'CPU ' + l.id + (l.kind === KIND_CPU_EV ? ' events' : '');
        l.sort = l.id * 2 + (l.kind === KIND_CPU_EV ? 1 : 0);
        cpu.rows.push(l);
        continue;
      }
      const pid = pidOf(l.id);
      if (!procs.has(pid)) {
        const t = threads.get(pid) || threads.get(l.id);
        procs.set(pid, { pid, label: (t && t.name ? t.name : '?') + ' (pid ' + pid + ')',
                         key: 'p' + pid, rows: [] });
      }
      l.label = threadLabel(l.id) + (l.kind === KIND_SYS ? ' \u00b7 syscalls' :
        l.kind === KIND_EV ? ' \u00b7 events' : ' \u00b7 ' + strings[l.sub]);
      l.sort = l.id * 8 + (l.kind === KIND_SYS ? 0 : l.kind === KIND_EV ? 1 : 2);
      procs.get(pid).rows.push(l);
      byTid.set(l.id, true);
    }
    if (cpu.rows.length) groups.push(cpu);
    for (const p of [...procs.values()].sort((a, b) => a.pid - b.pid)) groups.push(p);
    for (const g of groups) {
      g.rows.sort((a, b) => a.sort - b.sort || a.label.localeCompare(b.label));
      g.open = true;
    }
  }
  buildRows();
  let rows = [];	// {group} or {lane}, with y and h, in drawing order
  let rowsHeight = 0;
  function layout() {
    rows = [];
    let y = 0;
    for (const g of groups) {
      rows.push({ group: g, y, h: H.group });
      y += H.group;
      if (!g.open) continue;
      for (const l of g.rows) {
        const h = l.kind === KIND_CPU ? H.cpu : l.kind === KIND_SYS ? H.sys :
          l.kind === KIND_CTR ? H.ctr : H.ev;
        rows.push({ lane: l, y, h });
        y += h;
      }
    }
    rowsHeight = y;
    const box = labelsRows;
    box.textContent = '';
    for (const r of rows) {
      const e = document.createElement('div');
      e.className = r.group ? 'group' + (r.group.open ? '' : ' closed') : 'lane';
      e.style.top = r.y + 'px';
      e.style.height = r.h + 'px';
      e.style.lineHeight = (r.h - 1) + 'px';
      e.textContent = r.group ? r.group.label : r.lane.label;
      if (r.group) {
        e.dataset.group = r.group.key;
        e.addEventListener('click', () => { r.group.open = !r.group.open; layout(); draw(); });
      } else {
        e.dataset.kind = ['cpu', 'cpu-events', 'syscalls', 'events', 'counter'][r.lane.kind];
        e.dataset.id = r.lane.id;
        e.dataset.lane = r.lane.i;
      }
      r.el = e;
      box.appendChild(e);
    }
    markSearch();
  }

  // ---- the page ----------------------------------------------------------
  document.body.insertAdjacentHTML('beforeend',
    '<div id="bar"><b>trawl timeline</b><span class="title"></span>' +
    '<input id="search" type="search" placeholder="search event, process, thread (/)">' +
    '<span id="found" class="info"></span>' +
    '<button id="zin" title="zoom in (W, +)">+</button><button id="zout" title="zoom out (S, -)">\u2212</button>' +
    '<button id="fit" title="whole trace (0)">fit</button><span id="sel" class="info"></span>' +
    '<span class="help">wheel: scroll \u00b7 Ctrl+wheel / W S: zoom \u00b7 drag / A D: pan \u00b7 ' +
    'Shift+drag: select \u00b7 click: fields</span></div>' +
    '<div id="main"><canvas id="cv"></canvas><div id="labels"><div class="rows"></div></div></div>' +
    '<div id="tip" hidden></div><div id="details" hidden></div>');
  const $ = (id) => document.getElementById(id);
  const cv = $('cv'), ctx = cv.getContext('2d'), main = $('main');
  const labelsRows = document.querySelector('#labels .rows');
  document.querySelector('#bar .title').textContent = D.title + ' \u00b7 ' + D.events + ' events';
  document.title = 'trawl timeline: ' + D.title;

  // ---- the view ------------------------------------------------------------
  const view = { t0: 0, t1: END, scroll: 0, sel: null, hover: null, picked: null };
  let W = 0, HT = 0;
  function plotW() { return Math.max(10, W - LABELS); }
  function xOf(t) { return LABELS + (t - view.t0) * plotW() / (view.t1 - view.t0); }
  function tOf(x) { return view.t0 + (x - LABELS) * (view.t1 - view.t0) / plotW(); }
  function setView(t0, t1) {
    const minSpan = 50, span = Math.max(minSpan, Math.min(t1 - t0, END * 1.2 + 1000));
    const c = (t0 + t1) / 2;
    t0 = c - span / 2;
    t0 = Math.max(-END * 0.1, Math.min(t0, END * 1.1 - span));
    view.t0 = t0;
    view.t1 = t0 + span;
    schedule();
  }
  function zoom(f, at) {
    if (at === undefined) at = (view.t0 + view.t1) / 2;
    setView(at - (at - view.t0) * f, at + (view.t1 - at) * f);
  }
  function pan(frac) {
    const d = (view.t1 - view.t0) * frac;
    setView(view.t0 + d, view.t1 + d);
  }
  function scrollBy(dy) {
    const max = Math.max(0, rowsHeight - (HT - RULER) + 20);
    view.scroll = Math.max(0, Math.min(max, view.scroll + dy));
    schedule();
  }
  // the coarsest level whose buckets are at most 2 pixels (else the finest)
  function levelIndex() {
    const nsPerPx = (view.t1 - view.t0) / plotW();
    let pick = 0;
    for (let i = 0; i < levels.length; i++) if (levels[i].q <= nsPerPx * 2) pick = i;
    return pick;
  }
  function firstVisible(a, t) {	// first item that may end at or after t
    let lo = 0, hi = a.n;
    while (lo < hi) {
      const m = (lo + hi) >> 1;
      if (a.maxT1[m] < t) lo = m + 1; else hi = m;
    }
    return lo;
  }

  // ---- search ----------------------------------------------------------------
  let query = '', nameHit = null, laneHit = null;
  function setQuery(q) {
    query = q.trim().toLowerCase();
    nameHit = null;
    laneHit = null;
    if (query) {
      nameHit = new Uint8Array(strings.length);
      strings.forEach((s, i) => { if (s.toLowerCase().includes(query)) nameHit[i] = 1; });
      laneHit = new Set();
      for (const g of groups) {
        const gh = g.label.toLowerCase().includes(query);
        for (const l of g.rows) if (gh || l.label.toLowerCase().includes(query)) laneHit.add(l.i);
      }
    }
    markSearch();
    $('found').textContent = query ? countMatches() + ' matches' : '';
    schedule();
  }
  function itemHits(l, a, k) {
    if (!query) return true;
    if (laneHit.has(l.i)) return true;
    if (l.kind === KIND_CTR) return false;
    return nameHit[a.a[k]] === 1 || (l.kind === KIND_CPU && laneHitTid(a.d[k]));
  }
  function laneHitTid(tid) {
    const t = threads.get(tid);
    return !!t && (String(tid) === query || t.name.toLowerCase().includes(query));
  }
  function matches(fn) {	// items of the finest level that match, for each (lane, k)
    const li = 0;
    for (const l of lanes) {
      const a = l.lv[li];
      if (!a) continue;
      for (let k = 0; k < a.n; k++) if (itemHits(l, a, k) && fn(l, a, k) === false) return;
    }
  }
  function countMatches() {
    let n = 0;
    matches((l, a, k) => { n += Math.abs(a.b[k]) || 1; });
    return n;
  }
  function markSearch() {
    for (const r of rows) {
      if (!r.el) continue;
      const hit = !!query && (r.lane ? laneHit.has(r.lane.i) : r.group.label.toLowerCase().includes(query));
      r.el.classList.toggle('hit', hit);
    }
  }
  function nextMatch(back) {
    const c = (view.t0 + view.t1) / 2;
    let best = null;
    matches((l, a, k) => {
      const t = a.t0[k];
      if (back ? t < c - 1 && (!best || t > best.t) : t > c + 1 && (!best || t < best.t))
        best = { t, l, k, a };
    });
    if (!best) return;
    const span = view.t1 - view.t0;
    setView(best.t - span / 2, best.t + span / 2);
    reveal(best.l);
    view.picked = { lane: best.l, lvl: 0, k: best.k };
    showDetails(view.picked);
  }
  function reveal(l) {
    for (const g of groups) if (g.rows.includes(l) && !g.open) { g.open = true; layout(); }
    const r = rows.find((x) => x.lane === l);
    if (r && (r.y < view.scroll || r.y + r.h > view.scroll + HT - RULER)) {
      view.scroll = 0;
      scrollBy(r.y - (HT - RULER) / 3);
    }
  }

  // ---- drawing -------------------------------------------------------------
  let pending = false;
  const hook = { drawn: [], record: false, frameMs: 0, frames: 0 };
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; draw(); });
  }
  function resize() {
    const dpr = window.devicePixelRatio || 1;
    W = main.clientWidth;
    HT = main.clientHeight;
    cv.width = Math.round(W * dpr);
    cv.height = Math.round(HT * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    scrollBy(0);
    draw();
  }
  function drawRuler() {
    ctx.fillStyle = '#eceff1';
    ctx.fillRect(0, 0, W, RULER);
    ctx.fillStyle = '#37474f';
    ctx.font = '10px system-ui, sans-serif';
    ctx.fillText(fmtClock(view.t0), 6, 10);
    ctx.fillText('span ' + fmtDur(view.t1 - view.t0), 6, 21);
    // ticks at least 110 px apart, at 1, 2 or 5 times a power of ten ns
    const span = view.t1 - view.t0, target = span / (plotW() / 110);
    let step = Math.pow(10, Math.floor(Math.log10(Math.max(target, 1))));
    if (step < target) step *= step * 2 >= target ? 2 : step * 5 >= target ? 5 : 10;
    ctx.strokeStyle = '#b0bec5';
    ctx.beginPath();
    for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      ctx.moveTo(x, RULER - 8);
      ctx.lineTo(x, HT);
      ctx.fillText('+' + fmtDur(t), x + 3, 13);
    }
    ctx.stroke();
  }
  function drawGroupRow(r, y) {
    ctx.fillStyle = '#eceff1';
    ctx.fillRect(LABELS, y, W - LABELS, r.h);
  }
  function sliceColour(l, a, k) {
    if (l.kind === KIND_CPU) return colour('p' + pidOf(a.d[k]));
    if (a.b[k] < 0) return '#9e9e9e';
    return colour(strings[a.a[k]]);
  }
  function drawSlices(r, y, l, a, lvl) {
    const x0v = LABELS, x1v = W;
    const h = r.h - 3;
    let px0 = -1, px1 = -1, pc = null, pdim = false;
    const flush = () => {
      if (pc === null) return;
      ctx.globalAlpha = pdim ? 0.2 : 1;
      ctx.fillStyle = pc;
      ctx.fillRect(px0, y + 1, Math.max(1, px1 - px0), h);
    };
    const end = view.t1;
    for (let k = firstVisible(a, view.t0); k < a.n && a.t0[k] <= end; k++) {
      if (a.t1[k] < view.t0) continue;
      let x0 = Math.max(x0v, xOf(a.t0[k])), x1 = Math.min(x1v, xOf(a.t1[k]));
      if (x1 - x0 < 1) x1 = x0 + 1;
      const c = sliceColour(l, a, k), dim = !itemHits(l, a, k);
      if (c === pc && dim === pdim && x0 <= px1 + 0.5) {
        px1 = Math.max(px1, x1);
      } else {
        flush();
        px0 = x0; px1 = x1; pc = c; pdim = dim;
      }
      if (x1 - x0 > 40) {	// room for its name
        flush();
        pc = null;
        const name = l.kind === KIND_CPU ? threadLabel(a.d[k]) : strings[a.a[k]] +
          (Math.abs(a.b[k]) > 1 ? ' \u00d7' + Math.abs(a.b[k]) : '');
        ctx.globalAlpha = dim ? 0.2 : 1;
        ctx.fillStyle = c;
        ctx.fillRect(x0, y + 1, x1 - x0, h);
        ctx.fillStyle = '#fff';
        ctx.font = '10px system-ui, sans-serif';
        ctx.save();
        ctx.beginPath();
        ctx.rect(x0, y, x1 - x0 - 2, r.h);
        ctx.clip();
        ctx.fillText(name, x0 + 3, y + h - 2);
        ctx.restore();
      }
      if (hook.record) record(r, l, a, k, lvl, x0, x1, y, h);
    }
    flush();
    ctx.globalAlpha = 1;
  }
  function drawMarks(r, y, l, a, lvl) {
    let lastX = -10, lastC = null;
    for (let k = firstVisible(a, view.t0); k < a.n && a.t0[k] <= view.t1; k++) {
      if (a.t1[k] < view.t0) continue;
      const x0 = xOf(a.t0[k]), x1 = xOf(a.t1[k]);
      const c = a.b[k] < 0 ? '#757575' : colour(strings[a.a[k]]);
      const dim = !itemHits(l, a, k);
      if (hook.record) record(r, l, a, k, lvl, x0, Math.max(x1, x0 + 1), y, r.h);
      if (x1 - lastX < 1 && c === lastC && !dim) continue;
      lastX = x1;
      lastC = c;
      ctx.globalAlpha = dim ? 0.2 : 1;
      ctx.fillStyle = c;
      if (x1 - x0 >= 2) {	// events merged over a span
        ctx.globalAlpha *= 0.6;
        ctx.fillRect(x0, y + 3, x1 - x0, r.h - 6);
      } else {
        ctx.beginPath();
        ctx.moveTo(x0, y + 2);
        ctx.lineTo(x0 + 4, y + r.h - 2);
        ctx.lineTo(x0 - 4, y + r.h - 2);
        ctx.closePath();
        ctx.fill();
      }
    }
    ctx.globalAlpha = 1;
  }
  function drawCounter(r, y, l, a, lvl) {
    const all = l.lv[levels.length - 1] || a;
    if (l.lo === undefined) {	// the scale: the whole range of the coarsest level
      l.lo = Infinity; l.hi = -Infinity;
      for (let k = 0; k < all.n; k++) { l.lo = Math.min(l.lo, all.b[k]); l.hi = Math.max(l.hi, all.c[k]); }
    }
    const yOf = (v) => y + r.h - 3 - (l.hi > l.lo ? (v - l.lo) / (l.hi - l.lo) : 0.5) * (r.h - 6);
    ctx.strokeStyle = colour('c' + strings[l.sub]);
    ctx.globalAlpha = query && !laneHit.has(l.i) ? 0.25 : 1;
    ctx.beginPath();
    let k = Math.max(0, firstVisible(a, view.t0) - 1), started = false, lastY = 0;
    for (; k < a.n && (k === 0 || a.t0[k - 1] <= view.t1); k++) {
      const x = Math.max(LABELS, Math.min(W, xOf(a.t0[k])));
      if (!started) { ctx.moveTo(x, yOf(a.a[k])); started = true; } else ctx.lineTo(x, lastY);
      if (a.d[k] > 1) { ctx.moveTo(x, yOf(a.b[k])); ctx.lineTo(x, yOf(a.c[k])); }
      lastY = yOf(a.a[k]);
      ctx.lineTo(x, lastY);
      if (hook.record) record(r, l, a, k, lvl, x, x + 1, y, r.h);
    }
    if (started) ctx.lineTo(Math.min(W, xOf(END)), lastY);
    ctx.stroke();
    ctx.globalAlpha = 1;
    ctx.fillStyle = '#607d8b';
    ctx.font = '9px system-ui, sans-serif';
    ctx.fillText(String(l.hi), LABELS + 2, y + 9);
  }
  function record(r, l, a, k, lvl, x0, x1, y, h) {
    hook.drawn.push({
      lane: l.i, kind: l.kind, id: l.id, level: lvl, k,
      name: l.kind === KIND_CTR ? strings[l.sub] : l.kind === KIND_CPU ? threadLabel(a.d[k]) : strings[a.a[k]],
      t0: a.t0[k], t1: a.t1[k], n: l.kind === KIND_CTR ? a.d[k] : Math.abs(a.b[k]),
      x: x0, w: x1 - x0, y, h,
    });
  }
  function draw() {
    const start = performance.now();
    if (!W) return;
    hook.drawn = [];
    ctx.clearRect(0, 0, W, HT);
    const lvl = levelIndex();
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, RULER, W, HT - RULER);
    ctx.clip();
    for (const r of rows) {
      const y = RULER + r.y - view.scroll;
      if (y + r.h < RULER || y > HT) continue;
      if (r.group) { drawGroupRow(r, y); continue; }
      ctx.fillStyle = (r.lane.i & 1) ? '#fff' : '#f6f8f9';
      ctx.fillRect(LABELS, y, W - LABELS, r.h);
      const a = r.lane.lv[lvl] || r.lane.lv.find((x) => x);
      if (!a) continue;
      const l = r.lane;
      if (l.kind === KIND_CPU || l.kind === KIND_SYS) drawSlices(r, y, l, a, lvl);
      else if (l.kind === KIND_CTR) drawCounter(r, y, l, a, lvl);
      else drawMarks(r, y, l, a, lvl);
    }
    if (view.sel) {
      const x0 = xOf(Math.min(view.sel[0], view.sel[1])), x1 = xOf(Math.max(view.sel[0], view.sel[1]));
      ctx.fillStyle = 'rgba(33,150,243,0.15)';
      ctx.fillRect(x0, RULER, x1 - x0, HT);
      ctx.strokeStyle = '#1976d2';
      ctx.strokeRect(x0 + 0.5, RULER, x1 - x0, HT);
    }
    if (view.picked) {
      const p = view.picked, r = rows.find((x) => x.lane === p.lane), a = p.lane.lv[p.lvl];
      if (r && a && p.k < a.n) {
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 2;
        const x0 = xOf(a.t0[p.k]), x1 = Math.max(xOf(a.t1[p.k]), x0 + 2);
        ctx.strokeRect(x0 - 2, RULER + r.y - view.scroll, x1 - x0 + 4, r.h);
        ctx.lineWidth = 1;
      }
    }
    ctx.restore();
    ctx.fillStyle = '#fafafa';	// under the DOM labels
    ctx.fillRect(0, RULER, LABELS, HT);
    ctx.strokeStyle = '#cfd8dc';
    ctx.beginPath();
    ctx.moveTo(LABELS - 0.5, 0);
    ctx.lineTo(LABELS - 0.5, HT);
    ctx.stroke();
    drawRuler();
    labelsRows.style.transform = 'translateY(' + (-view.scroll) + 'px)';
    hook.frameMs = performance.now() - start;
    hook.frames++;
  }

  // ---- finding what is under the mouse --------------------------------------
  function hit(x, y) {
    if (x < LABELS || y < RULER) return null;
    const yy = y - RULER + view.scroll;
    const r = rows.find((q) => yy >= q.y && yy < q.y + q.h);
    if (!r || !r.lane) return null;
    const l = r.lane, lvl = levelIndex();
    const li = l.lv[lvl] ? lvl : l.lv.findIndex((q) => q);
    const a = l.lv[li];
    if (!a) return null;
    const t = tOf(x), slack = 4 * (view.t1 - view.t0) / plotW();
    let best = -1, bestD = Infinity;
    for (let k = firstVisible(a, t - slack); k < a.n && a.t0[k] <= t + slack; k++) {
      const d = t < a.t0[k] ? a.t0[k] - t : t > a.t1[k] ? t - a.t1[k] : 0;
      if (d <= slack && d < bestD) { best = k; bestD = d; }
      if (l.kind === KIND_CTR && a.t0[k] <= t) { best = k; bestD = 0; }
    }
    return best < 0 ? null : { lane: l, lvl: li, k: best };
  }
  function describe(p) {
    const l = p.lane, a = l.lv[p.lvl], k = p.k, lv = levels[p.lvl];
    const out = [];
    if (l.kind === KIND_CTR) {
      out.push(['counter', strings[l.sub]], ['thread', threadLabel(l.id)], ['value', a.a[k]]);
      if (a.d[k] > 1) out.push(['samples', a.d[k]], ['lowest', a.b[k]], ['highest', a.c[k]]);
    } else if (l.kind === KIND_CPU) {
      const tid = a.d[k], t = threads.get(tid);
      out.push(['thread', threadLabel(tid)], ['process', t ? t.pid : '?'], ['CPU', l.id]);
      if (Math.abs(a.b[k]) > 1) out.push(['runs', Math.abs(a.b[k]) + ' (the longest one shown)']);
    } else {
      out.push([l.kind === KIND_SYS ? 'system call' : 'event', strings[a.a[k]]]);
      if (l.kind >= KIND_SYS) out.push(['thread', threadLabel(l.id)]);
      if (Math.abs(a.b[k]) > 1)
        out.push(['events', Math.abs(a.b[k]) + (a.b[k] < 0 ? ' (several names)' : '') +
          ' merged: zoom in or write with a larger --detail']);
    }
    out.push(['start', fmtClock(a.t0[k]) + '  (+' + fmtDur(a.t0[k]) + ')']);
    if (a.t1[k] > a.t0[k]) out.push(['duration', fmtDur(a.t1[k] - a.t0[k])]);
    const det = l.kind !== KIND_CTR && a.c[k] >= 0 ? lv.details[a.c[k]] : null;
    return { rows: out, fields: det };
  }
  function flat(o, pre, out) {
    for (const [k, v] of Object.entries(o)) {
      if (v && typeof v === 'object' && !Array.isArray(v) && !('value' in v && 'label' in v))
        flat(v, pre + k + '.', out);
      else out.push([pre + k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
    }
    return out;
  }
  function showTip(p, mx, my) {
    const tip = $('tip');
    if (!p) { tip.hidden = true; return; }
    const d = describe(p);
    let text = d.rows.map(([k, v]) => k + ': ' + v).join('\n');
    if (d.fields) text += '\n' + flat(d.fields.payload || d.fields.entry || d.fields, '', [])
      .filter(([k]) => k !== 'name' && k !== 'trace').slice(0, 12).map(([k, v]) => k + ': ' + v).join('\n');
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = Math.min(mx + 14, window.innerWidth - tip.offsetWidth - 4) + 'px';
    tip.style.top = Math.min(my + 14, window.innerHeight - tip.offsetHeight - 4) + 'px';
  }
  function showDetails(p) {
    const box = $('details');
    if (!p) { box.hidden = true; main.classList.remove('with-details'); resize(); return; }
    const d = describe(p);
    box.textContent = '';
    const h = document.createElement('h3');
    h.textContent = d.rows[0][1];
    box.appendChild(h);
    const tab = document.createElement('table');
    const add = (k, v) => {
      const tr = tab.insertRow();
      tr.insertCell().textContent = k;
      tr.insertCell().textContent = v;
    };
    for (const [k, v] of d.rows) add(k, v);
    if (d.fields) for (const [k, v] of flat(d.fields, '', [])) add(k, v);
    box.appendChild(tab);
    box.hidden = false;
    if (!main.classList.contains('with-details')) { main.classList.add('with-details'); resize(); }
  }

  // ---- mouse and keys -----------------------------------------------------------
  let drag = null;
  cv.addEventListener('mousedown', (e) => {
    const sel = e.shiftKey || e.offsetY < RULER;
    drag = { x: e.offsetX, y: e.offsetY, t0: view.t0, t1: view.t1, scroll: view.scroll, sel, moved: false };
    if (sel) view.sel = [tOf(e.offsetX), tOf(e.offsetX)];
    cv.classList.toggle('dragging', !sel);
    e.preventDefault();
  });
  window.addEventListener('mousemove', (e) => {
    const rect = cv.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
    if (!drag) {
      view.hover = hit(x, y);
      showTip(view.hover, e.clientX, e.clientY);
      return;
    }
    if (Math.abs(x - drag.x) + Math.abs(y - drag.y) > 3) drag.moved = true;
    if (drag.sel) {
      view.sel[1] = tOf(x);
      showSel();
    } else {
      const dt = (x - drag.x) * (drag.t1 - drag.t0) / plotW();
      view.t0 = drag.t0 - dt;
      view.t1 = drag.t1 - dt;
      view.scroll = drag.scroll;
      scrollBy(drag.y - y);
    }
    schedule();
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    cv.classList.remove('dragging');
    if (d.moved) return;
    const rect = cv.getBoundingClientRect();
    if (d.sel) { view.sel = null; showSel(); schedule(); return; }
    view.picked = hit(e.clientX - rect.left, e.clientY - rect.top);
    showDetails(view.picked);
    schedule();
  });
  cv.addEventListener('mouseleave', () => showTip(null));
  cv.addEventListener('wheel', (e) => {
    e.preventDefault();
    const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY, dx = e.deltaMode === 1 ? e.deltaX * 16 : e.deltaX;
    if (e.ctrlKey || e.metaKey || e.altKey) zoom(Math.pow(1.002, dy), tOf(e.offsetX));
    else if (e.shiftKey) pan(dy / 800);
    else if (Math.abs(dx) > Math.abs(dy)) pan(dx / 800);
    else scrollBy(dy);
  }, { passive: false });
  function showSel() {
    const s = view.sel;
    $('sel').textContent = s ? 'selection ' + fmtDur(Math.abs(s[1] - s[0])) +
      ' (+' + fmtDur(Math.min(s[0], s[1])) + ' \u2192 +' + fmtDur(Math.max(s[0], s[1])) + ')  Z: zoom to it' : '';
  }
  window.addEventListener('keydown', (e) => {
    const inSearch = document.activeElement === $('search');
    if (inSearch) {
      if (e.key === 'Enter') nextMatch(e.shiftKey);
      if (e.key === 'Escape') $('search').blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    switch (e.key) {
      case 'w': case 'W': case '+': case '=': zoom(0.7); break;
      case 's': case 'S': case '-': case '_': zoom(1 / 0.7); break;
      case 'a': case 'A': case 'ArrowLeft': pan(-0.2); break;
      case 'd': case 'D': case 'ArrowRight': pan(0.2); break;
      case 'ArrowUp': scrollBy(-40); break;
      case 'ArrowDown': scrollBy(40); break;
      case 'PageUp': scrollBy(-(HT - RULER) * 0.8); break;
      case 'PageDown': scrollBy((HT - RULER) * 0.8); break;
      case '0': case 'Home': setView(0, END); break;
      case 'z': case 'Z':
        if (view.sel) setView(Math.min(...view.sel), Math.max(...view.sel));
        break;
      case 'Escape': view.sel = null; view.picked = null; showSel(); showDetails(null); break;
      case '/': $('search').focus(); break;
      default: return;
    }
    e.preventDefault();
    schedule();
  });
  $('search').addEventListener('input', (e) => setQuery(e.target.value));
  $('zin').onclick = () => zoom(0.5);
  $('zout').onclick = () => zoom(2);
  $('fit').onclick = () => setView(0, END);
  window.addEventListener('resize', resize);

  // ---- the handle for scripts (and the tests) ---------------------------------
  window.trawl = Object.assign(hook, {
    data: D, levels, lanes, groups,
    rows: () => rows.map((r) => r.group ? { group: r.group.label, y: r.y + RULER - view.scroll, h: r.h } :
      { lane: r.lane.i, kind: r.lane.kind, id: r.lane.id, label: r.lane.label, y: r.y + RULER - view.scroll, h: r.h }),
    view: () => ({ t0: view.t0, t1: view.t1, scroll: view.scroll, level: levels[levelIndex()].shift,
      sel: view.sel && Math.abs(view.sel[1] - view.sel[0]) }),
    setView: (t0, t1) => { setView(t0, t1); draw(); },
    search: (q) => { $('search').value = q; setQuery(q); draw(); return $('found').textContent; },
    reveal: (i) => { reveal(lanes[i]); draw(); },
    draw, xOf, tOf, origin: originText, plotLeft: LABELS, ruler: RULER,
  });
  layout();
  resize();
  hook.readyMs = performance.now();	// from navigation start: parsing and the first frame
})();
