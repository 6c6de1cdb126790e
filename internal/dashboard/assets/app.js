// The sudocode dashboard: the tracker, the ruleset library and the
// orchestrator's tasks, viewed and changed, kept live over Server-Sent
// Events. Changes need the server's token (the page is read-only without
// it, and says how to get it).
// Everything shown is set as text (textContent, createTextNode) or through
// markdown.js, which builds DOM nodes the same way: no HTML strings.
(function () {
  'use strict';

  const md = window.SudocodeMarkdown;
  const main = document.getElementById('main');
  const live = document.getElementById('live');
  const footer = document.getElementById('footer');
  // canWrite is whether this page holds the token; without it the page
  // hides its actions and says how to get write access.
  let canWrite = false;
  let tasksAvailable = false;
  let writing = 0; // the page's own changes on their way (see refresh)
  let afterWrite = false; // a refresh waits for them

  // The page's key comes in the address the token opened (/?key=…) and
  // is kept in this origin's storage, which no other port of the host can
  // read; every change sends it beside the cookie, which other ports do
  // receive. The address then loses it (the view in its fragment stays).
  const keyName = 'sudocode-page-key';
  const opened = new URLSearchParams(location.search).get('key');
  if (opened) {
    localStorage.setItem(keyName, opened);
    history.replaceState(null, '', '/' + location.hash);
  }

  // h builds an element: h('div', {class: 'x', dataset: {id: 1}, onclick: fn}, 'text', child …).
  function h(tag, props) {
    const e = document.createElement(tag);
    if (props) {
      for (const k of Object.keys(props)) {
        const v = props[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'dataset') Object.assign(e.dataset, v);
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else if (k === 'text') e.textContent = v;
        else e.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (let i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }

  function add(parent, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { kid.forEach((k) => add(parent, k)); return; }
    parent.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }

  function link(hash, text, cls) {
    return h('a', { href: '#' + hash, class: cls }, text);
  }

  // route builds a hash route from parts, each encoded.
  function route() {
    return '/' + Array.prototype.map.call(arguments, encodeURIComponent).join('/');
  }

  class APIError extends Error {
    constructor(message, hint, status) { super(message); this.hint = hint; this.status = status; }
  }

  // api reads path, or with a method and a body sends a change as JSON
  // (the cookie carries the token; the browser adds the page's Origin).
  async function api(path, method, change) {
    const opts = { headers: { Accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' };
    if (method) {
      opts.method = method;
      opts.headers['Content-Type'] = 'application/json';
      opts.headers['X-Sudocode-Page-Key'] = localStorage.getItem(keyName) || '';
      opts.body = JSON.stringify(change === undefined ? {} : change);
    }
    if (method) writing++;
    let r;
    let body = null;
    try {
      r = await fetch(path, opts);
      try { body = await r.json(); } catch (e) { body = null; }
    } finally {
      // The change stays on its way until the code that awaited it has
      // run (it may leave the view): a timer fires after that code's
      // synchronous part, however slow the machine.
      if (method) setTimeout(wrote, 0);
    }
    if (!r.ok) {
      const err = body && body.error;
      throw new APIError(err ? err.message : r.status + ' ' + r.statusText, err && err.hint, r.status);
    }
    return body;
  }

  function when(t) {
    if (!t) return '';
    const d = new Date(t);
    if (isNaN(d)) return String(t);
    return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  }

  function clock(t) {
    const d = new Date(t);
    if (isNaN(d)) return '';
    return d.toLocaleTimeString(undefined, { hour12: false });
  }

  function badge(text, cls, title) {
    return h('span', { class: 'badge ' + (cls || ''), title: title }, text);
  }

  function statusBadge(s) {
    return badge(String(s).replace(/_/g, ' '), 'st-' + String(s).replace(/[^\w-]/g, ''));
  }

  function problem(err, what) {
    return h('div', { class: 'problem', role: 'alert' },
      h('strong', null, what ? what + ' unavailable' : 'Error'),
      h('p', null, err.message || String(err)),
      err.hint ? h('p', { class: 'hint' }, err.hint) : null);
  }

  function markdown(src, cls) {
    const box = h('div', { class: 'markdown ' + (cls || '') });
    box.append(md.render(src || ''));
    return box;
  }

  // ---- views ------------------------------------------------------------

  // toast shows a short message at the bottom of the page for a few
  // seconds (an error until the next one).
  const toastBox = h('div', { class: 'toasts', id: 'toasts', role: 'status', 'aria-live': 'polite' });
  document.body.append(toastBox);
  function toast(text, isError) {
    const t = h('div', { class: 'toast' + (isError ? ' error' : '') }, text);
    toastBox.replaceChildren(t);
    if (!isError) setTimeout(() => t.remove(), 4000);
  }

  // editor is a markdown textarea with a preview tab.
  function editor(id, value, rows) {
    const area = h('textarea', { id: id, rows: rows || 10, spellcheck: 'true' });
    area.value = value || '';
    const preview = h('div', { class: 'preview', id: id + '-preview', hidden: true });
    const write = h('button', { type: 'button', class: 'on', id: id + '-write' }, 'Write');
    const show = h('button', { type: 'button', id: id + '-show' }, 'Preview');
    write.addEventListener('click', () => { area.hidden = false; preview.hidden = true; write.classList.add('on'); show.classList.remove('on'); area.focus(); });
    show.addEventListener('click', () => {
      preview.replaceChildren(markdown(area.value || '*Nothing to preview.*'));
      area.hidden = true; preview.hidden = false; show.classList.add('on'); write.classList.remove('on');
    });
    return { area: area, el: h('div', { class: 'editor' }, h('div', { class: 'tabs' }, write, show), area, preview) };
  }

  // ask shows a modal dialog with one text field and resolves to its
  // value, or null when cancelled (Escape included).
  function ask(title, label, confirm, required) {
    return new Promise((resolve) => {
      const input = h('input', { id: 'ask-input', type: 'text', required: !!required, autocomplete: 'off' });
      const dlg = h('dialog', { class: 'dialog', id: 'ask-dialog', 'aria-label': title });
      let answer = null;
      dlg.append(h('form', { method: 'dialog', onsubmit: (e) => { e.preventDefault(); answer = input.value.trim(); dlg.close(); } },
        h('h2', null, title), h('label', null, label, input),
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'ask-confirm' }, confirm),
          h('button', { type: 'button', class: 'button', onclick: () => dlg.close() }, 'Cancel'))));
      dlg.addEventListener('close', () => { dlg.remove(); resolve(answer); });
      document.body.append(dlg);
      dlg.showModal();
      input.focus();
    });
  }

  const ui = { h, add, link, route, api, badge, statusBadge, problem, markdown, when, clock, toast, editor, ask,
    anchorBadge: (a) => specs.anchorBadge(a), diffView: (t) => agents.diffView(t), refresh: () => refresh(), canWrite: () => canWrite };
  ui.cost = window.SudocodeCost(ui);
  const issues = window.SudocodeIssues(ui);
  const help = window.SudocodeHelp(ui);
  const specs = window.SudocodeSpecs(ui);
  const rules = window.SudocodeRulesets(ui);
  ui.onCleanup = (fn) => cleanup.push(fn);
  const agents = window.SudocodeTasks(ui);
  ui.issueExtras = agents.issueExtras;
  ui.taskBadge = agents.taskBadge;
  // agentsByIssue maps an issue id to the newest unfinished task working
  // on it, or one waiting for review or conflicted (empty when tasks are
  // unavailable).
  ui.agentsByIssue = async () => {
    const out = {};
    if (!tasksAvailable) return out;
    try {
      const list = await api('/api/tasks');
      for (const t of list.tasks) {
        const id = agents.issueOf(t);
        if (id && !out[id] && (['pending', 'in_progress', 'waiting'].includes(t.status) || ['completed', 'conflicted'].includes(t.state) && t.worktree_path)) out[id] = t;
      }
    } catch (err) { /* the board shows without them */ }
    return out;
  };

  const views = {
    board: { nav: 'board', topics: ['tracker', 'tasks'], render: issues.renderBoard },
    issue: { nav: 'board', topics: ['tracker', 'tasks'], render: issues.renderIssue },
    'new-issue': { nav: 'board', topics: [], render: issues.renderIssueForm },
    'edit-issue': { nav: 'board', topics: [], render: issues.renderIssueForm },
    search: { nav: 'board', topics: ['tracker'], render: issues.renderSearch },
    specs: { nav: 'specs', topics: ['tracker'], render: specs.renderSpecs },
    spec: { nav: 'specs', topics: ['tracker'], render: specs.renderSpec },
    'edit-spec': { nav: 'specs', topics: [], render: specs.renderSpecForm },
    'new-spec': { nav: 'specs', topics: [], render: specs.renderNewSpec },
    rulesets: { nav: 'rulesets', topics: ['rulesets'], render: rules.renderRulesets },
    ruleset: { nav: 'rulesets', topics: ['rulesets'], render: rules.renderRuleset },
    'new-ruleset': { nav: 'rulesets', topics: [], render: rules.renderRulesetForm },
    'edit-ruleset': { nav: 'rulesets', topics: [], render: rules.renderRulesetForm },
    tasks: { nav: 'tasks', topics: ['tasks'], render: agents.renderTasks },
    task: { nav: 'tasks', topics: [], render: agents.renderTask },
    'new-task': { nav: 'tasks', topics: [], render: agents.renderTaskForm },
  };

  let current = null; // {name, args, token}
  let focusNext = null; // the id of an element the next view shown takes the focus to (a shortcut that changed views)
  let cleanup = [];

  function parseHash() {
    const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
    const name = views[parts[0]] ? parts[0] : 'board';
    return { name: name, args: parts.slice(1) };
  }

  async function show(refresh) {
    const r = parseHash();
    const view = views[r.name];
    if (!refresh) {
      cleanup.forEach((f) => f());
      cleanup = [];
      if (view.nav !== 'board') issues.clearFilters(); // the filters are shown on the issues' views only
      for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.view === view.nav);
    }
    const token = {};
    current = { name: r.name, args: r.args, token: token };
    const box = h('div', { class: 'view view-' + r.name });
    try {
      if (await view.render(box, r.args, refresh) === false) return; // the view keeps itself live
    } catch (err) {
      box.replaceChildren(problem(err));
    }
    if (current.token !== token) return; // a newer render started
    const y = window.scrollY;
    const focus = refresh ? focusOf() : null;
    if (refresh) keepEdits(box);
    main.replaceChildren(box);
    if (focus) focus();
    // A form's first field (marked data-autofocus by its view) takes the
    // focus once its view is in the page: a timer the view set while
    // building it could fire on a box a live refresh had already replaced.
    const first = !focus && (!refresh || document.activeElement === document.body) ? box.querySelector('[data-autofocus]') : null;
    if (first) first.focus();
    if (focusNext) {
      // The render that shows it may be a live refresh that overtook the
      // one the shortcut started; a view without it drops the wish.
      const e = document.getElementById(focusNext);
      if (e) e.focus();
      if (e || !refresh) focusNext = null;
    }
    if (refresh) window.scrollTo(0, y);
    document.body.dataset.view = r.name;
    document.body.dataset.rendered = String(Number(document.body.dataset.rendered || 0) + 1);
  }

  // keepEdits carries what the user typed or chose in the view's fields
  // (marked dirty as they change) into its re-render, so a live change
  // never wipes a half-written form.
  main.addEventListener('input', (e) => { if (e.target.id) e.target.dataset.dirty = '1'; });
  main.addEventListener('change', (e) => { if (e.target.id) e.target.dataset.dirty = '1'; });
  function keepEdits(box) {
    for (const old of main.querySelectorAll('[data-dirty]')) {
      const now = box.querySelector('#' + CSS.escape(old.id));
      if (!now || now.tagName !== old.tagName) continue;
      if (old.type === 'checkbox' || old.type === 'radio') now.checked = old.checked; // a box's value is its label, not its state
      else now.value = old.value;
      now.dataset.dirty = '1';
    }
  }

  // focusOf remembers which element of the view has the focus and where
  // its caret is, and returns what puts them back after a re-render: a live
  // change must not pull the focus from under the user. A field is found
  // again by its id; a card, row or search hit that j/k moved to (a link
  // without an id) by its kind and where it leads.
  function focusOf() {
    const a = document.activeElement;
    if (!a || a === main || !main.contains(a)) return null;
    let selector = null;
    if (a.id) {
      selector = '#' + CSS.escape(a.id);
    } else if (a.tagName === 'A' && a.getAttribute('href')) {
      selector = 'a' + (a.classList.length ? '.' + CSS.escape(a.classList[0]) : '') + '[href="' + CSS.escape(a.getAttribute('href')) + '"]';
    }
    if (!selector) return null;
    const sel = typeof a.selectionStart === 'number' ? [a.selectionStart, a.selectionEnd] : null;
    return () => {
      const e = main.querySelector(selector);
      if (!e) return;
      e.focus({ preventScroll: true });
      if (sel && typeof e.setSelectionRange === 'function') {
        try { e.setSelectionRange(sel[0], sel[1]); } catch (err) { /* not a text field */ }
      }
    };
  }

  // refresh re-renders the current view when a topic it shows changed;
  // several changes in a row make one render.
  // While one of the page's own changes is on its way, a refresh waits
  // for it: the change's handler may leave the view (a deleted ruleset),
  // which a refresh in between would ask for and not find.
  let pending = null;
  function refresh(topic) {
    if (!current) return;
    if (topic && !views[current.name].topics.includes(topic)) return;
    if (writing > 0) { afterWrite = true; return; }
    if (pending) return;
    // A view left meanwhile rendered afresh when it was opened: the
    // refresh was for the one before (a form opened again right after its
    // save must not be drawn again under the user's first edits).
    const view = current.token;
    pending = setTimeout(() => { pending = null; if (current && current.token === view) show(true); }, 80);
  }
  function wrote() {
    writing--;
    if (writing === 0 && afterWrite) { afterWrite = false; refresh(); }
  }

  // ---- live updates -----------------------------------------------------

  function connect() {
    const es = new EventSource('/api/events');
    let opened = false;
    es.addEventListener('open', () => {
      live.textContent = 'live';
      live.className = 'live on';
      if (opened) refresh(); // reconnected: catch up on anything missed
      opened = true;
    });
    es.addEventListener('error', () => {
      live.textContent = 'reconnecting\u2026';
      live.className = 'live off';
    });
    es.addEventListener('tracker', () => refresh('tracker'));
    es.addEventListener('rulesets', () => refresh('rulesets'));
    es.addEventListener('tasks', () => refresh('tasks'));
    es.addEventListener('resync', () => refresh());
  }

  async function loadInfo() {
    try {
      const info = await api('/api/info');
      canWrite = !info.read_only;
      tasksAvailable = info.tasks.available;
      document.body.classList.toggle('read-only', !canWrite);
      const access = document.getElementById('access');
      access.hidden = canWrite;
      access.replaceChildren(h('strong', null, 'Read-only. '), info.write_access || '');
      footer.replaceChildren(
        h('span', null, 'sudocode ' + info.version + ' \u00b7 ', h('span', { class: 'mono' }, info.dir)),
        h('span', { class: 'endpoints' }, 'MCP: ', info.endpoints.map((e, k) => [k ? ' \u00b7 ' : '',
          h('span', { class: 'mono' + (e.available ? '' : ' unavailable'), title: e.available ? location.origin + e.path : e.reason }, e.path)])),
        h('span', { class: 'muted' }, canWrite ? 'changes are saved to the project, as the CLI saves them' : 'read-only'));
    } catch (err) {
      footer.replaceChildren(h('span', { class: 'error-text' }, err.message));
    }
  }

  // ---- keyboard ---------------------------------------------------------

  // The shortcuts: c new issue, / filter the board, j/k next and previous
  // card or row, Enter opens it (it is a link), e edit the issue shown,
  // Shift+←/→ move the focused card to the column before or after, ? help.
  function typing(e) {
    const t = e.target;
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  }

  function step(dir) {
    // Only what is shown: a folded column's cards are skipped.
    const items = Array.from(main.querySelectorAll('.card, #issue-table tbody a.id, #spec-list tbody a.id, #task-list tbody a, .search-hit'))
      .filter((e) => e.offsetParent !== null);
    if (!items.length) return;
    const at = items.indexOf(document.activeElement);
    const next = items[at < 0 ? (dir > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + dir))];
    next.focus();
    next.scrollIntoView({ block: 'nearest' });
  }

  function focusFilter() {
    const f = document.getElementById('filter-text');
    if (f) { f.focus(); return; }
    focusNext = 'filter-text'; // the board's render takes it, however long it takes
    location.hash = '#/board';
  }

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e) || document.querySelector('dialog[open]')) return;
    if (e.shiftKey && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) {
      if (issues.moveFocused(e.key === 'ArrowRight' ? 1 : -1)) e.preventDefault();
      return;
    }
    switch (e.key) {
      case 'c':
        if (!canWrite) { toast('This page is read-only. ' + (document.getElementById('access').textContent || ''), true); break; }
        // As for /: the form's title field must not receive the c.
        document.addEventListener('keyup', () => { location.hash = '#/new-issue'; }, { once: true });
        break;
      case '/':
        // The focus moves when the key is released, so the key's own
        // character is never typed into the filter.
        document.addEventListener('keyup', focusFilter, { once: true });
        break;
      case 'j': step(1); break;
      case 'k': step(-1); break;
      case 'e': {
        const b = document.getElementById('edit-issue') || document.getElementById('edit-spec') || document.getElementById('edit-ruleset');
        if (!b) return;
        document.addEventListener('keyup', () => b.click(), { once: true }); // as for c
        break;
      }
      case '?':
        help.open();
        break;
      default:
        return;
    }
    e.preventDefault();
  });

  window.addEventListener('hashchange', () => show(false));
  connect();
  loadInfo().then(() => show(false));
})();
