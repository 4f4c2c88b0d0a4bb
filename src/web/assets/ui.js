// rpprof web UI: the pickers, the notice of new profiles, the sortable table.
// Every choice is a URL: the pickers navigate to a new one, nothing is kept elsewhere.
(function () {
  'use strict';

  // x with d decimals as C's printf writes it, as the text reports are written: a value
  // exactly halfway (1.25 MB, 0.5 %) goes to the even digit, where toFixed rounds it up.
  function fixed(x, d) {
    const s = x.toFixed(d);
    // The exact decimal value (toFixed writes up to 100 digits exactly).
    const exact = x.toFixed(Math.min(100, d + 40));
    const tail = exact.slice(exact.length - 40);
    if (!/^50*$/.test(tail) || (s.charCodeAt(s.length - 1) - 48) % 2 === 0) return s;
    // A tie rounded to an odd digit: the even one is the value cut after d decimals.
    let cut = exact.slice(0, exact.length - 40);
    if (cut.endsWith('.')) cut = cut.slice(0, -1);
    return cut;
  }
  window.rpprof = { fixed: fixed };

  // A bare URL was answered with the command line's choices (its --base, --focus...): put
  // them in the address bar, so that a reload, a bookmark and the links made from it keep
  // them.
  const filled = document.querySelector('header[data-query]');
  if (filled && window.history && window.history.replaceState) {
    const q = filled.dataset.query;
    window.history.replaceState(null, '',
      window.location.pathname + (q ? '?' + q : '') + window.location.hash);
  }

  const form = document.getElementById('controls');
  const trendPage = document.body.dataset.page === 'trend';
  const viewPicker = document.getElementById('view-picker');
  const notice = document.getElementById('notice');

  // The URL of the form's page with the form's values (empty ones left out) and the
  // parameters the form does not hold (the flame graph's search, for one).
  function formURL() {
    const url = new URL(form.action, window.location.href);
    const params = new URLSearchParams();
    const inForm = new Set();
    for (const el of form.elements) {
      if (!el.name) continue;
      // The trend's Diff picker is off, not emptied: the base the URL brought is kept for
      // the other pages (unless a change of kind emptied it, below).
      if (trendPage && el.id === 'base-picker' && el.disabled) continue;
      inForm.add(el.name);
      if (!el.disabled && el.value !== '') params.set(el.name, el.value);
    }
    for (const [k, v] of new URLSearchParams(window.location.search)) {
      if (!inForm.has(k) && v !== '') params.set(k, v);
    }
    url.search = params.toString();
    return url;
  }

  function go() {
    window.location.assign(formURL().toString());
  }

  function say(text, link) {
    notice.textContent = text;
    if (link) {
      notice.append(' ');
      const a = document.createElement('a');
      a.href = link.href;
      a.textContent = link.text;
      a.id = 'notice-link';
      notice.append(a);
    }
    notice.hidden = false;
  }

  // The "<new profile>" choice of a remote source: fetch one, then show it.
  let fetching = false;
  function fetchNew(source) {
    if (fetching) return;
    fetching = true;
    say('Fetching a new profile…');
    fetch('/ui/fetch?source=' + encodeURIComponent(source), { method: 'POST' })
      .then((r) => r.text().then((t) => [r.status, t]))
      .then(([status, text]) => {
        if (status >= 400) {
          fetching = false;
          say(text);
        }
      })
      .catch((e) => { fetching = false; say('Fetch failed: ' + e); });
  }

  const viewKind = viewPicker && viewPicker.selectedOptions[0] ? viewPicker.selectedOptions[0].dataset.kind : '';
  if (form) {
    for (const sel of form.querySelectorAll('select')) {
      sel.addEventListener('change', () => {
        const opt = sel.selectedOptions[0];
        if (opt && opt.dataset.fetch !== undefined) {
          fetchNew(opt.dataset.fetch);
          return;
        }
        if (sel === viewPicker && opt && opt.dataset.kind !== viewKind) {
          // A profile of another kind: the base and the value column do not fit it.
          const base = document.getElementById('base-picker');
          if (base) { base.value = ''; base.disabled = false; }
          const si = document.getElementById('si-picker');
          if (si) si.disabled = true;
        }
        go();
      });
    }
    form.addEventListener('submit', (e) => { e.preventDefault(); go(); });
    // Back and Forward bring a page back with its controls as they were last changed (the
    // change that went to the next page), or as the browser remembers them: they are set
    // again to what the page shows, its URL's.
    const disabled = new Map([...form.elements].map((el) => [el, el.disabled]));
    window.addEventListener('pageshow', () => {
      form.reset();
      for (const [el, d] of disabled) el.disabled = d;
    });
  }

  // New profiles: the history is asked every few seconds.
  const generation = document.body.dataset.generation;
  let known = new Set();
  if (viewPicker) {
    for (const o of viewPicker.options) if (o.value) known.add(o.value);
  }
  // Asked with the page's view and value column: the answer says which profiles could be
  // its base.
  const basePicker = document.getElementById('base-picker');
  const siPicker = document.getElementById('si-picker');
  const historyURL = (() => {
    const q = new URLSearchParams();
    if (viewPicker && viewPicker.value) q.set('view', viewPicker.value);
    if (siPicker && !siPicker.disabled) q.set('si', siPicker.value);
    const s = q.toString();
    return '/ui/history' + (s ? '?' + s : '');
  })();
  let gone = false;
  const goneLead = (h) => 'This profile is no longer kept (--max_profiles_kept=' + h.max_kept +
      ' keeps the newest): this page stays as it is, its links will not find it. ';
  const arrived = new Set();
  function poll() {
    fetch(historyURL, { cache: 'no-store' })
      .then((r) => r.json())
      .then((h) => {
        if (String(h.generation) === generation) return;
        // Profiles let go (past --max_profiles_kept) leave the pickers, unless chosen.
        const kept = new Set(h.profiles.map((p) => p.name));
        for (const picker of [viewPicker, basePicker]) {
          if (!picker) continue;
          for (const o of Array.from(picker.options)) {
            if (o.value && o.dataset.fetch === undefined && !kept.has(o.value) && !o.selected) o.remove();
          }
        }
        if (!gone && viewPicker && viewPicker.value && !kept.has(viewPicker.value)) {
          gone = true;
          say(goneLead(h));
        }
        // (Said again before each later notice: the notice of new profiles replaces it.)
        const lead = gone ? goneLead(h) : '';
        const fresh = h.profiles.filter((p) => !known.has(p.name));
        if (fetching && fresh.length > 0) {
          const url = new URL(window.location.href);
          url.searchParams.set('view', fresh[0].name);
          url.searchParams.delete('base');
          window.location.assign(url.toString());
          return;
        }
        // Each new option goes where the history lists it (newest first, by modification
        // time: a dump copied with its old time goes below newer ones), before the first
        // option of a profile listed after it or let go (the oldest).
        const rank = new Map(h.profiles.map((p, i) => [p.name, i]));
        const rankOf = (name) => (rank.has(name) ? rank.get(name) : Infinity);
        const place = (picker, o) => {
          const mine = rankOf(o.value);
          const before = Array.from(picker.options).find(
            (x) => x.value && x.dataset.fetch === undefined && rankOf(x.value) > mine);
          picker.add(o, before || null);
        };
        for (const p of fresh) {
          known.add(p.name);
          const o = document.createElement('option');
          o.value = p.name;
          o.textContent = p.name;
          o.dataset.kind = p.kind;
          place(viewPicker, o);
          // (Off on a trend page; off and empty elsewhere until a profile fits.)
          if (basePicker && (!basePicker.disabled || !trendPage) && p.diff) {
            const b = document.createElement('option');
            b.value = p.name;
            b.textContent = p.name;
            place(basePicker, b);
            basePicker.disabled = false;
            basePicker.closest('label')?.removeAttribute('title');
          }
        }
        if (fresh.length > 0) {
          // Counted since the page was loaded: dumps arriving one by one are not each
          // announced alone, as if the one before had not come.
          // On a trend page, only the dumps its trend would take (its kind, subtractable
          // from the view): a dump of another kind or run is no part of it.
          for (const p of fresh) {
            if (!trendPage || (p.kind === viewKind && p.diff)) arrived.add(p.name);
          }
          if (arrived.size === 0) return;
          const newest = h.profiles.find((p) => arrived.has(p.name));
          if (!newest) return;
          const url = new URL(window.location.href);
          url.searchParams.set('view', newest.name);
          const n = arrived.size;
          const what = (n === 1 ? 'New profile: ' : n + ' new profiles since this page was loaded, the newest: ') + newest.name + '.';
          // The trend shown is of the dumps there were: a new one changes it.
          say(lead + what + (trendPage ? ' The trend shown leaves ' + (n === 1 ? 'it' : 'them') + ' out.' : ''),
              { href: url.toString(), text: trendPage ? 'Show the trend with ' + (n === 1 ? 'it' : 'them') : 'Show it' });
        }
      })
      .catch(() => {});
  }
  if (viewPicker) window.setInterval(poll, 3000);

  // The call graph fills the window below the header.
  const frame = document.getElementById('graph-frame');
  if (frame) {
    const fit = () => {
      frame.style.height = Math.max(200, window.innerHeight - frame.getBoundingClientRect().top - 12) + 'px';
    };
    window.addEventListener('resize', fit);
    fit();
  }

  // Sortable tables: a click on a column heading sorts by it, a second click reverses.
  // The server's orders (largest flat or cum value first: `data-order`) come from the
  // server, whose Sum% is the running total in that order; any other order is made here,
  // its running total left blank (it would add up rounded percentages), and kept in the
  // URL's fragment (`#sort=<column>-<asc|desc>`), so that a reload shows the same table.
  for (const table of document.querySelectorAll('table.sortable')) {
    const heads = Array.from(table.tHead.rows[0].cells);
    const sorted = table.dataset.sorted;
    const body = table.tBodies[0];
    const original = Array.from(body.rows);
    const running = heads.findIndex((h) => h.dataset.running);
    const mark = (col, desc) => {
      for (const h of heads) h.classList.remove('asc', 'desc');
      if (col >= 0) heads[col].classList.add(desc ? 'desc' : 'asc');
    };
    const showRunning = (shown) => {
      if (running < 0) return;
      for (const r of original) {
        const c = r.cells[running];
        if (c.dataset.t === undefined) c.dataset.t = c.textContent;
        c.textContent = shown ? c.dataset.t : '';
        c.title = shown ? '' : 'a running total only in the flat or cum order';
      }
    };
    const fragment = (value) => {
      const url = new URL(window.location.href);
      url.hash = value ? 'sort=' + value : '';
      window.history.replaceState(null, '', url.toString().replace(/#$/, ''));
    };
    // The server's order, as the page came (`state` null), or the column and direction of
    // one made here.
    let state = null;
    const restore = () => {
      for (const r of original) body.appendChild(r);
      showRunning(true);
      mark(sorted ? heads.findIndex((h) => h.dataset.key === sorted) : -1, true);
      fragment('');
      state = null;
    };
    const sortHere = (col, desc) => {
      const numeric = heads[col].dataset.type === 'num';
      const key = (r) => {
        const c = r.cells[col];
        return numeric ? parseFloat(c.dataset.v) || 0 : (c.dataset.t ?? c.textContent);
      };
      const rows = original.slice();
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        const o = numeric ? x - y : String(x).localeCompare(String(y));
        return desc ? -o : o;
      });
      for (const r of rows) body.appendChild(r);
      showRunning(false);
      mark(col, desc);
      fragment(col + '-' + (desc ? 'desc' : 'asc'));
      state = { col: col, desc: desc };
    };
    const asked = /^#sort=(\d+)-(asc|desc)$/.exec(window.location.hash);
    restore();
    if (asked && Number(asked[1]) < heads.length) {
      const col = Number(asked[1]);
      const desc = asked[2] === 'desc';
      // (A server order in the fragment, from an edited URL: the page's own.)
      if (!(desc && heads[col].dataset.order && heads[col].dataset.order === sorted)) {
        sortHere(col, desc);
      }
    }
    // Clicks on one column: its first order (largest first for a number, A to Z for a
    // name), the reverse, then the page's own order again.
    heads.forEach((th, col) => {
      th.addEventListener('click', () => {
        const numeric = th.dataset.type === 'num';
        const order = th.dataset.order;
        const mine = order && order === sorted;
        let desc;
        if (state && state.col === col) {
          // (The reverse of a server order is the page's own: back to it.)
          if (state.desc !== numeric || mine) {
            restore();
            return;
          }
          desc = !state.desc;
        } else if (!state && mine) {
          desc = false;
        } else {
          desc = numeric;
        }
        // A server order is asked of the server, which has all the rows of a cut table
        // and the running total. (The form's URL: it holds the expressions the page shows,
        // the command line's on a bare URL, which a URL with parameters must say.) A cut
        // table holds only the first rows: it is sorted in no other order by a number.
        if (order && (desc || table.dataset.cut)) {
          if (mine) {
            restore();
            return;
          }
          const url = form ? formURL() : new URL(window.location.href);
          url.searchParams.set('sort', order);
          url.hash = '';
          window.location.assign(url.toString());
          return;
        }
        sortHere(col, desc);
      });
    });
  }
})();
