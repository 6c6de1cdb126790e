// The issues' overview beside the board: the toggle between the board and
// a table, the table itself (sorted by a column header, grouped), and the
// board's collapsible closed column. The choices are kept in the page's
// storage, so a reload or a later visit shows the issues the same way.
// Sorting, grouping and paging are the server's (/api/issue-table): the
// table stays quick however many issues there are.
window.SudocodeOverview = function (ui) {
  'use strict';
  const { h, api, badge, statusBadge, route, when, toast } = ui;

  const VIEW_KEY = 'sudocode-issues-view';
  const TABLE_KEY = 'sudocode-issue-table';
  const CLOSED_KEY = 'sudocode-closed-collapsed';
  const COLUMNS = ['id', 'title', 'status', 'priority', 'assignee', 'updated'];
  const GROUPS = { '': 'none', status: 'status', priority: 'priority', assignee: 'assignee' };

  // Storage may be refused (a private window's quota): the page then
  // works with the defaults.
  function load(key, def) {
    try { const v = localStorage.getItem(key); return v === null ? def : JSON.parse(v); } catch (e) { return def; }
  }
  function save(key, v) {
    try { localStorage.setItem(key, JSON.stringify(v)); } catch (e) { /* kept for this page only */ }
  }

  const mode = () => (load(VIEW_KEY, 'board') === 'table' ? 'table' : 'board');

  // toggle is the pair of buttons that switch the issues between the
  // board and the table.
  function toggle() {
    const now = mode();
    const b = (name, label) => h('button', { type: 'button', id: 'view-' + name, class: now === name ? 'on' : null, 'aria-pressed': String(now === name),
      onclick: () => { if (mode() !== name) { save(VIEW_KEY, name); ui.refresh(); } } }, label);
    return h('div', { class: 'tabs view-toggle', role: 'group', 'aria-label': 'show the issues as' }, b('board', 'Board'), b('table', 'Table'));
  }

  // collapsible lets the closed column fold to a narrow strip that keeps
  // its count and still takes a dropped card.
  function collapsible(col) {
    const set = (folded) => {
      col.classList.toggle('collapsed', folded);
      btn.setAttribute('aria-expanded', String(!folded));
      btn.title = folded ? 'show the closed issues' : 'fold the closed column';
      btn.textContent = folded ? '\u25b8' : '\u25be';
    };
    const btn = h('button', { type: 'button', class: 'icon fold', id: 'toggle-closed', 'aria-label': 'closed column shown',
      onclick: () => { const folded = !col.classList.contains('collapsed'); save(CLOSED_KEY, folded); set(folded); } });
    col.querySelector('h2').prepend(btn);
    set(load(CLOSED_KEY, false) === true);
  }

  // ---- the table --------------------------------------------------------

  function tableState() {
    const s = load(TABLE_KEY, {});
    return { sort: COLUMNS.includes(s.sort) ? s.sort : 'priority', dir: s.dir === 'desc' ? 'desc' : 'asc', group: s.group in GROUPS ? s.group : '' };
  }

  function groupLabel(group, key) {
    if (group === 'status') return statusBadge(key);
    if (group === 'priority') return 'P' + key;
    return key || 'unassigned';
  }

  // renderTable shows the table under head(counts), the page's title row
  // and filters; query(extra) is the board's query with the filters.
  async function renderTable(box, query, head) {
    const st = tableState();
    let t;
    try {
      t = await api('/api/issue-table' + query({ sort: st.sort, dir: st.dir, group: st.group }));
    } catch (err) {
      box.append(...head(''), ui.problem(err, 'The tracker is'));
      return;
    }
    const group = h('label', null, 'group by ', h('select', { id: 'table-group', onchange: (e) => { save(TABLE_KEY, Object.assign(st, { group: e.target.value })); ui.refresh(); } },
      Object.keys(GROUPS).map((g) => h('option', { value: g, selected: st.group === g }, GROUPS[g]))));
    const sortBy = (c) => {
      // A second click turns the order round; the newest first is the
      // first order of updated, the smallest first of the others.
      const dir = st.sort === c ? (st.dir === 'asc' ? 'desc' : 'asc') : (c === 'updated' ? 'desc' : 'asc');
      save(TABLE_KEY, Object.assign(st, { sort: c, dir: dir }));
      ui.refresh();
    };
    const th = (c) => h('th', { 'aria-sort': st.sort === c ? (st.dir === 'asc' ? 'ascending' : 'descending') : 'none', class: 'col-' + c },
      h('button', { type: 'button', class: 'sort', id: 'sort-' + c, title: 'sort by ' + c, onclick: () => sortBy(c) },
        c, st.sort === c ? h('span', { class: 'arrow', 'aria-hidden': 'true' }, st.dir === 'asc' ? ' \u25b2' : ' \u25bc') : null));
    const body = h('tbody');
    const sizes = {};
    for (const g of t.groups) sizes[g.key] = g.count;
    let last = null;
    const addRows = (rows) => {
      for (const r of rows) {
        const key = st.group === 'status' ? r.column : st.group === 'priority' ? String(r.priority) : st.group === 'assignee' ? (r.assignee || '') : null;
        if (st.group && key !== last) {
          body.append(h('tr', { class: 'group-row', dataset: { group: key } },
            h('th', { colspan: COLUMNS.length, scope: 'rowgroup' }, groupLabel(st.group, key), h('span', { class: 'count' }, String(sizes[key] || 0)))));
          last = key;
        }
        body.append(row(r));
      }
    };
    addRows(t.rows);
    const table = h('table', { class: 'list issue-table', id: 'issue-table' }, h('thead', null, h('tr', null, COLUMNS.map(th))), body);
    box.append(...head(t.total + ' shown'), h('div', { class: 'table-tools' }, group), h('div', { class: 'table-wrap' }, table));
    if (!t.rows.length) box.append(h('p', { class: 'empty' }, 'No issue matches.'));
    if (t.total > t.rows.length) {
      const more = h('button', { type: 'button', class: 'more', id: 'table-more' }, 'show more (' + (t.total - t.rows.length) + ')');
      more.addEventListener('click', async () => {
        const shown = body.querySelectorAll('tr.issue-row').length;
        try {
          const next = await api('/api/issue-table' + query({ sort: st.sort, dir: st.dir, group: st.group, offset: shown }));
          addRows(next.rows);
          const left = next.total - body.querySelectorAll('tr.issue-row').length;
          if (left > 0) more.textContent = 'show more (' + left + ')';
          else more.remove();
        } catch (err) { toast(err.message, true); }
      });
      box.append(more);
    }
  }

  function row(r) {
    const status = [statusBadge(r.column)];
    if (r.column !== r.status) status.push(' ', statusBadge(r.status));
    if (r.ready) status.push(' ', badge('ready', 'ready'));
    return h('tr', { class: 'issue-row', dataset: { id: r.id } },
      h('td', { class: 'col-id' }, h('a', { class: 'id', href: '#' + route('issue', r.id), title: r.id }, r.id)),
      h('td', { class: 'col-title' }, h('a', { href: '#' + route('issue', r.id), tabindex: '-1' }, r.title)),
      h('td', null, status),
      h('td', null, badge('P' + r.priority, 'prio p' + r.priority)),
      h('td', { class: 'col-assignee', title: r.assignee || '' }, r.assignee || h('span', { class: 'muted' }, '\u2014')),
      h('td', { class: 'small', title: r.updated_at }, when(r.updated_at)));
  }

  return { mode, toggle, collapsible, renderTable };
};
