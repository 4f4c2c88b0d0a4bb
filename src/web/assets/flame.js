// rpprof web UI: the flame graph, drawn as SVG from the stacks the page carries
// (report/stacks.rs writes them). Root at the top, callees below; frames sorted by name.
// Click a frame to zoom to it (the root to zoom out); search with a regular expression to
// mark frames and see the share of the stacks they are on; "callers" (URL parameter p, a
// regular expression, as in Go pprof) turns the graph round: the function first, its
// callers below. With a base (the Diff picker) frames are sized by the profile and coloured
// by the change: red grew, blue shrank.
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('flame-data').textContent);
  const chart = document.getElementById('flame');
  const info = document.getElementById('flame-info');
  const search = document.getElementById('search');
  const matched = document.getElementById('matched');
  const pivotBox = document.getElementById('pivot');
  const actions = document.getElementById('flame-actions');
  const resetZoom = document.getElementById('reset-zoom');
  const SVG = 'http://www.w3.org/2000/svg';
  const ROW = 18;
  const MIN_WIDTH = 0.5;
  const CHAR = 6.7;
  const names = data.names;

  // A regular expression as the server's boxes take them, as far as JavaScript's can: a
  // leading (?i) is the i flag. undefined when it is not one.
  function compile(s) {
    if (!s) return null;
    const m = /^\(\?i\)/.exec(s);
    try { return m ? new RegExp(s.slice(4), 'i') : new RegExp(s); } catch (e) { return undefined; }
  }

  function quoteMeta(s) {
    return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
  }

  // The function a frame's name stands for, as focus, ignore, hide and the source page
  // match it: its short name without " (inline)" and without the "@address" that keeps
  // functions of one short name apart, with or without GCC's " [clone ...]", anchored.
  function functionRe(name) {
    const n = name.replace(/ \(inline\)$/, '').replace(/(.)@[0-9a-f]+$/, '$1');
    return '^' + quoteMeta(n) + '(?: \\[clone [^\\]]*\\])*$';
  }

  const params = new URLSearchParams(window.location.search);
  const grain = params.get('g') || 'functions';

  // What focus, ignore, hide and the top page match for a frame: its function's names at
  // function granularity; at line granularity its place (`file:line`, the end of its name);
  // at file granularity the lines of the file; at address granularity, or for a frame of
  // unknown place (`??:0`), nothing (null: no such actions).
  function frameRe(name) {
    if (grain === 'functions') return functionRe(name);
    const n = name.replace(/ \(inline\)$/, '');
    if (/(?:^| )\?\?:0$/.test(n)) return null;
    if (grain === 'files') return '^' + quoteMeta(n) + ':\\d+$';
    const place = grain === 'lines' && /(?:^| )([^ ]*:\d+)$/.exec(n);
    return place ? '^' + quoteMeta(place[1]) + '$' : null;
  }
  const pivotText = params.get('p');
  const pivot = compile(pivotText);

  // The tree of frames; in callers mode each stack is cut at its innermost frame matching
  // p and turned round. A node's children are an array, sorted by name when first drawn.
  function node(id, parent) {
    return { id: id, parent: parent, v: 0, b: 0, kids: [], index: null, depth: parent ? parent.depth + 1 : 0, sorted: null };
  }
  // The child of n named id, made when it has none.
  function child(n, id) {
    if (!n.index) n.index = new Map(n.kids.map((c) => [c.id, c]));
    let c = n.index.get(id);
    if (!c) {
      c = node(id, n);
      n.kids.push(c);
      n.index.set(id, c);
    }
    return c;
  }
  const root = node(-1, null);
  // Each stack's value and frames: ids[from], ids[from + 1]... (the page's own array, not
  // a copy, unless turned round).
  const paths = [];
  // The stacks come sorted by their frames, root first (report/stacks.rs): the stacks that
  // start alike are next to each other, so the first frames a stack shares with the stack
  // before are the same nodes, and the others are new ones (no lookups: a large profile
  // has a million frames and half a million nodes). Stacks in no such order (callers mode
  // turns them round) are looked up frame by frame.
  let along = [root];
  let before = null;
  for (const s of data.stacks) {
    const v = Math.max(0, s[0]);
    const b = Math.max(0, s[1]);
    let path = s;
    let from = 2;
    if (pivot) {
      let k = -1;
      for (let j = s.length - 1; j >= 2; j--) {
        if (pivot.test(names[s[j]])) { k = j; break; }
      }
      if (k < 0) continue;
      path = s.slice(2, k + 1).reverse();
      from = 0;
    }
    paths.push({ v: v, ids: path, from: from });
    // How many frames it shares with the stack before, and whether it comes after it.
    let k = 0;
    let after = !pivot;
    if (after && before) {
      const most = Math.min(s.length, before.length) - 2;
      while (k < most && s[k + 2] === before[k + 2]) k++;
      after = k + 2 < s.length && (k + 2 === before.length || s[k + 2] > before[k + 2]);
    }
    if (after) {
      along.length = k + 1;
      for (let j = 0; j <= k; j++) {
        along[j].v += v;
        along[j].b += b;
      }
      for (let j = k + 2; j < s.length; j++) {
        const up = along[along.length - 1];
        const c = node(s[j], up);
        c.v = v;
        c.b = b;
        up.kids.push(c);
        if (up.index) up.index.set(c.id, c);
        along.push(c);
      }
      before = s;
      continue;
    }
    let n = root;
    n.v += v;
    n.b += b;
    along = [root];
    for (let j = from; j < path.length; j++) {
      n = child(n, path[j]);
      n.v += v;
      n.b += b;
      along.push(n);
    }
    before = pivot ? null : s;
  }

  function kids(n) {
    if (!n.sorted) {
      n.sorted = n.kids.slice().sort((a, b) => {
        const x = names[a.id], y = names[b.id];
        return x < y ? -1 : x > y ? 1 : 0;
      });
    }
    return n.sorted;
  }

  function label(n) {
    if (n.id >= 0) return names[n.id];
    return pivot ? 'callers of ' + pivotText : 'all';
  }

  const fixed = window.rpprof.fixed;

  // (One formatter: toLocaleString makes one per call, a tenth of a second for the
  // thousands of frames of a large graph.)
  const counts = new Intl.NumberFormat('en-US');

  // Values as the profile counts them.
  function fmt(v) {
    const a = Math.abs(v);
    switch (data.measure) {
      case 'bytes': {
        const units = ['B', 'kB', 'MB', 'GB', 'TB'];
        let i = 0, x = a;
        while (x >= 1024 && i < units.length - 1) { x /= 1024; i++; }
        return (v < 0 ? '-' : '') + fixed(x, i === 0 ? 0 : 1) + ' ' + units[i];
      }
      case 'nanoseconds':
        if (a >= 1e9) return fixed(v / 1e9, 2) + ' s';
        if (a >= 1e6) return fixed(v / 1e6, 2) + ' ms';
        if (a >= 1e3) return fixed(v / 1e3, 1) + ' µs';
        return Math.round(v) + ' ns';
      default:
        return counts.format(Math.round(v)) + ' ' + data.measure;
    }
  }

  function pct(v, of) {
    return of > 0 ? fixed(100 * v / of, 1) + '%' : '0%';
  }

  function hash(s) {
    let h = 2166136261;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 16777619) >>> 0;
    }
    return h;
  }

  function color(n) {
    if (n.id < 0) return 'rgb(215,215,215)';
    if (data.diff) {
      const m = Math.max(n.v, n.b);
      if (m === 0) return 'rgb(235,235,235)';
      const r = (n.v - n.b) / m;
      const t = Math.round(235 - 175 * Math.min(1, Math.abs(r)));
      if (r > 0) return 'rgb(255,' + t + ',' + t + ')';
      if (r < 0) return 'rgb(' + t + ',' + t + ',255)';
      return 'rgb(235,235,235)';
    }
    const h = hash(names[n.id]);
    if (data.measure === 'bytes' || data.measure === 'objects') {
      return 'hsl(' + (100 + h % 60) + ',' + (45 + (h >>> 8) % 25) + '%,' + (58 + (h >>> 16) % 14) + '%)';
    }
    return 'hsl(' + (h % 48) + ',' + (78 + (h >>> 8) % 20) + '%,' + (58 + (h >>> 16) % 14) + '%)';
  }

  function details(n) {
    let t = label(n) + ' — ' + fmt(n.v) + ' (' + pct(n.v, root.v) + ')';
    if (zoomed !== root && n.depth > zoomed.depth) t += ', ' + pct(n.v, zoomed.v) + ' of ' + label(zoomed);
    if (data.diff) {
      const d = n.v - n.b;
      t += '; base ' + fmt(n.b) + ', change ' + (d >= 0 ? '+' : '') + fmt(d);
      if (n.b > 0) t += ' (' + (d >= 0 ? '+' : '') + pct(d, n.b) + ')';
      else if (n.v > 0) t += ' (new)';
    }
    return t;
  }

  let zoomed = root;
  let hits = null; // name id → matches the search
  let drawn = [];

  function el(name, attrs) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  function render() {
    chart.textContent = '';
    drawn = [];
    if (root.v <= 0) {
      const d = document.createElement('div');
      d.className = 'empty';
      d.id = 'flame-empty';
      d.textContent = pivot === undefined ? 'p=' + pivotText + ': bad regular expression'
        : pivot ? 'No stack has a frame matching ' + pivotText + '.'
        : 'Nothing to draw: no stack has a value (after focus, ignore, hide and show).';
      chart.appendChild(d);
      return;
    }
    const width = Math.max(200, chart.clientWidth || 1000);
    const svg = el('svg', { width: width, id: 'flame-svg' });
    let depth = 0;
    function frame(n, x, w, ancestor) {
      const i = drawn.length;
      drawn.push(n);
      const g = el('g', { 'class': 'frame' + (ancestor ? ' dim' : '') + (hits && n.id >= 0 && hits[n.id] ? ' match' : ''), 'data-i': i, 'data-name': label(n) });
      const y = n.depth * ROW;
      g.appendChild(el('rect', { x: x.toFixed(2), y: y, width: Math.max(w - 0.5, 0.5).toFixed(2), height: ROW - 1, fill: color(n) }));
      const chars = Math.floor((w - 6) / CHAR);
      if (chars >= 3) {
        const name = label(n);
        const t = el('text', { x: (x + 3).toFixed(2), y: y + ROW - 5 });
        t.textContent = name.length <= chars ? name : name.slice(0, chars - 2) + '..';
        g.appendChild(t);
      }
      const title = el('title', {});
      title.textContent = details(n);
      g.appendChild(title);
      svg.appendChild(g);
      if (n.depth > depth) depth = n.depth;
    }
    function below(n, x, scale) {
      let cx = x;
      for (const c of kids(n)) {
        const w = c.v * scale;
        if (w >= MIN_WIDTH) {
          frame(c, cx, w, false);
          below(c, cx, scale);
        }
        cx += w;
      }
    }
    for (let a = zoomed.parent; a; a = a.parent) frame(a, 0, width, true);
    frame(zoomed, 0, width, false);
    below(zoomed, 0, width / (zoomed.v || 1));
    svg.setAttribute('height', (depth + 1) * ROW);
    chart.appendChild(svg);
    chart.dataset.zoom = label(zoomed);
    chart.dataset.frames = String(drawn.length);
  }

  function link(page, set) {
    const url = new URL('/ui/' + page, window.location.href);
    const p = new URLSearchParams(window.location.search);
    p.delete('q');
    for (const k in set) {
      if (set[k] === null) p.delete(k);
      else p.set(k, set[k]);
    }
    url.search = p.toString();
    return url.toString();
  }

  function addTo(k, re) {
    const old = params.get(k);
    return old ? old + '|' + re : re;
  }

  function showActions(n) {
    if (n === root) {
      actions.hidden = true;
      return;
    }
    const name = label(n);
    const re = quoteMeta(name);
    const func = frameRe(name);
    actions.textContent = '';
    const b = document.createElement('b');
    b.textContent = name;
    actions.append(b, ' ' + fmt(n.v) + ' (' + pct(n.v, root.v) + ')  ');
    const items = [['callers', 'Callers', link('flamegraph', { p: '^' + re + '$' })]];
    if (func !== null) {
      items.push(
        ['focus', 'Focus', link('flamegraph', { f: func, p: null })],
        ['ignore', 'Ignore', link('flamegraph', { i: addTo('i', func) })]);
      // Hide matches functions' short names only: offered where frames are functions.
      if (grain === 'functions') {
        items.push(['hide', 'Hide', link('flamegraph', { h: addTo('h', func) })]);
      }
      items.push(['top', 'Top', link('top', { f: func, p: null })]);
    }
    // The source and peek pages name routines by their functions (a function inlined
    // into others is no routine: its lines are in theirs).
    if (grain === 'functions') {
      if (!name.endsWith(' (inline)')) {
        items.push(['source', 'Source', link('source', { f: func, p: null })]);
      }
      items.push(['peek', 'Peek', link('peek', { f: '^' + re + '$', p: null })]);
    }
    for (const [id, text, href] of items) {
      const a = document.createElement('a');
      a.id = 'action-' + id;
      a.href = href;
      a.textContent = text;
      actions.append(a);
    }
    actions.hidden = false;
  }

  chart.addEventListener('click', (e) => {
    const g = e.target.closest && e.target.closest('g.frame');
    if (!g) return;
    const n = drawn[Number(g.dataset.i)];
    zoomed = n === zoomed ? (n.parent || root) : n;
    showActions(n);
    render();
  });
  chart.addEventListener('mouseover', (e) => {
    const g = e.target.closest && e.target.closest('g.frame');
    if (g) info.textContent = details(drawn[Number(g.dataset.i)]);
  });
  chart.addEventListener('mouseleave', () => { info.textContent = details(zoomed); });
  resetZoom.addEventListener('click', () => {
    zoomed = root;
    actions.hidden = true;
    render();
  });

  // Search: the frames matching are marked; the share is that of the stacks with a frame
  // matching, each counted once.
  function applySearch(keepURL) {
    const text = search.value;
    const re = compile(text);
    if (re === undefined) {
      hits = null;
      matched.textContent = 'bad regular expression';
    } else if (re === null) {
      hits = null;
      matched.textContent = '';
    } else {
      hits = names.map((n) => re.test(n));
      let sum = 0;
      for (const p of paths) {
        for (let j = p.from; j < p.ids.length; j++) {
          if (hits[p.ids[j]]) {
            sum += p.v;
            break;
          }
        }
      }
      matched.textContent = 'Matched: ' + fmt(sum) + ' (' + pct(sum, root.v) + ')';
    }
    if (!keepURL) {
      const url = new URL(window.location.href);
      if (text) url.searchParams.set('q', text);
      else url.searchParams.delete('q');
      window.history.replaceState(null, '', url.toString());
    }
    render();
  }
  let timer = 0;
  search.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => applySearch(false), 250);
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      window.clearTimeout(timer);
      applySearch(false);
    }
  });

  if (pivotText) {
    // (A bad expression is said, not drawn as if it were one: the whole graph is drawn.)
    pivotBox.textContent = pivot === undefined
      ? 'Callers: p=' + pivotText + ' is not a regular expression; all stacks shown '
      : 'Callers of ' + pivotText + ' ';
    const a = document.createElement('a');
    a.href = link('flamegraph', { p: null });
    a.id = 'pivot-off';
    a.textContent = '(show all)';
    pivotBox.append(a);
  }
  window.addEventListener('resize', render);
  // With a base, a match is outlined: its fill is the change's colour.
  if (data.diff) chart.classList.add('diff');
  info.textContent = details(root);
  if (search.value) applySearch(true);
  else render();
})();
