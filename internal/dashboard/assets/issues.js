// Issues on the dashboard: the board (columns by the ready/blocked rule,
// filters, drag and keyboard moves), an issue's page with its actions, and
// the create/edit form. Every change is one call of the dashboard's API,
// which runs the tracker's own code. app.js passes its helpers in.
window.SudocodeIssues = function (ui) {
  'use strict';
  const { h, add, link, route, api, badge, statusBadge, problem, markdown, when, toast } = ui;

  const TYPES = ['task', 'bug', 'feature', 'epic', 'chore'];
  const PRIORITIES = [0, 1, 2, 3, 4];
  const LINK_TYPES = ['blocks', 'depends-on', 'parent-child', 'related', 'references', 'discovered-from', 'implements'];
  // A link in plain words, as the CLI says it: A <verb> B. The names read
  // backwards for the blocking types: `link A B --type blocks` means A
  // waits for B (seed 001: to_id must complete before from_id).
  const READS = {
    blocks: 'waits for', 'depends-on': 'waits for', 'parent-child': 'is the parent of', related: 'is related to',
    references: 'references', 'discovered-from': 'was discovered from', implements: 'implements',
  };
  const reads = (type) => READS[type] || type;
  const filters = { text: '', type: '', priority: '', assignee: '', tag: '' };
  const overview = window.SudocodeOverview(ui);
  const pickers = window.SudocodePickers(ui);
  const active = () => Object.keys(filters).filter((k) => filters[k] !== '').length;
  // clearFilters empties the filters: the page clears them when it leaves
  // the issues, so that no view is narrowed by a filter it does not show.
  function clearFilters() {
    for (const k of Object.keys(filters)) filters[k] = '';
  }

  function query(extra) {
    const q = new URLSearchParams();
    for (const k of Object.keys(filters)) if (filters[k] !== '') q.set(k, filters[k]);
    if (extra) for (const k of Object.keys(extra)) q.set(k, extra[k]);
    const s = q.toString();
    return s ? '?' + s : '';
  }

  // ---- the board --------------------------------------------------------

  let textTimer = null;
  let pickedAssignee = null; // the name last picked in the filter's list

  function filterBar() {
    const sel = (name, label, values) => h('label', null, label + ' ',
      h('select', { id: 'filter-' + name, onchange: (e) => { filters[name] = e.target.value; ui.refresh(); } },
        h('option', { value: '' }, 'any'),
        values.map((v) => h('option', { value: String(v), selected: filters[name] === String(v) }, name === 'priority' ? 'P' + v : v))));
    const text = (name, label, placeholder) => h('label', null, label + ' ',
      h('input', { id: 'filter-' + name, type: 'search', value: filters[name], placeholder: placeholder, autocomplete: 'off',
        oninput: (e) => {
          filters[name] = e.target.value.trim();
          clearTimeout(textTimer);
          textTimer = setTimeout(() => ui.refresh(), 200);
        },
        onkeydown: (e) => {
          if (name === 'text' && e.key === 'Enter' && filters.text) location.hash = '#' + route('search', filters.text);
          // Back to the shortcuts, the filter kept (a picker's open list
          // closes first). Not the search field's own Esc, which empties it.
          if (e.key === 'Escape' && e.target.getAttribute('aria-expanded') !== 'true') { e.preventDefault(); e.target.blur(); }
        } }));
    // The assignee is picked among the names in use, as in the issue form;
    // a name picked filters as typing it does. After a pick the field's
    // own re-render does not open the list again.
    const assignee = text('assignee', 'assignee', 'name');
    const assigneeInput = assignee.querySelector('input');
    assignee.replaceChildren('assignee ', pickers.attach(assigneeInput, pickers.assignees({ known: true }), {
      onFocus: () => filters.assignee !== pickedAssignee,
      onPick: (o) => {
        pickedAssignee = o.value;
        filters.assignee = o.value;
        clearTimeout(textTimer);
        ui.refresh();
      },
    }));
    return h('div', { class: 'filters', id: 'filters', role: 'search' },
      text('text', 'Filter', 'title or description  ( / )'),
      sel('type', 'type', TYPES), sel('priority', 'priority', PRIORITIES),
      assignee, text('tag', 'tag', 'tag'),
      active() ? h('span', { class: 'filter-active', id: 'filters-active', role: 'status' }, active() + (active() > 1 ? ' filters' : ' filter') + ' active ',
        h('button', { type: 'button', class: 'button small', id: 'filters-clear', onclick: () => { clearFilters(); ui.refresh(); } }, 'clear')) : null,
      h('span', { class: 'muted small' }, 'Enter searches everything'));
  }

  // head is the issues' title row, with counts, and their filters.
  function head(counts) {
    return [h('div', { class: 'title-row' },
      h('h1', null, 'Issues'),
      h('span', { class: 'counts', id: 'issue-counts' }, counts),
      overview.toggle(),
      ui.canWrite() ? h('a', { class: 'button primary right', id: 'new-issue', href: '#/new-issue', title: 'new issue (c)' }, 'New issue') : null),
    filterBar()];
  }

  async function renderBoard(box) {
    if (overview.mode() === 'table') return overview.renderTable(box, query, head);
    let b, agents;
    try {
      [b, agents] = await Promise.all([api('/api/issues' + query()), ui.agentsByIssue()]);
    } catch (err) {
      box.append(h('h1', null, 'Issues'), problem(err, 'The tracker is'));
      return;
    }
    // The columns count what the filters select; ready and blocked are the
    // tracker's, as `ready` and `blocked` say, which a filter does not narrow.
    const all = active() ? ' in all issues' : '';
    box.append(...head([b.total + ' shown \u00b7 ', badge(b.ready + ' ready' + all, 'ready'), ' ', badge(b.blocked + ' blocked' + all, 'blocked')]));
    const board = h('div', { class: 'board', id: 'board' });
    for (const st of b.statuses) {
      const items = b.issues.filter((i) => i.column === st);
      const count = b.counts[st] || 0;
      const list = h('div', { class: 'cards' });
      for (const it of items) list.append(issueCard(it, agents[it.id]));
      const col = h('section', { class: 'column', dataset: { status: st }, 'aria-label': st.replace(/_/g, ' ') + ' column' },
        h('h2', null, statusBadge(st), h('span', { class: 'count' }, String(count))), list);
      if (!items.length) list.append(h('p', { class: 'empty' }, 'none'));
      if (count > items.length) {
        col.append(h('button', { type: 'button', class: 'more', onclick: (e) => showMore(st, list, e.target, count) },
          'show more (' + (count - items.length) + ')'));
      }
      if (st === 'closed') overview.collapsible(col);
      if (ui.canWrite()) dropTarget(col, st);
      board.append(col);
    }
    box.append(board);
  }

  // showMore appends the next page of one column.
  async function showMore(st, list, button, count) {
    const shown = list.querySelectorAll('.card').length;
    try {
      const b = await api('/api/issues' + query({ column: st, offset: shown }));
      for (const it of b.issues) list.append(issueCard(it));
      const left = count - list.querySelectorAll('.card').length;
      if (left > 0) button.textContent = 'show more (' + left + ')';
      else button.remove();
    } catch (err) {
      toast(err.message, true);
    }
  }

  // issueCard is an issue on the board; task is the agent at work on it.
  function issueCard(it, task) {
    const flags = [];
    if (it.ready) flags.push(badge('ready', 'ready', 'open, and nothing unfinished blocks it'));
    if (it.blocked) flags.push(badge('blocked', 'blocked', it.blocked_by.length ? 'waits for ' + it.blocked_by.map((x) => x.title).join(', ') : 'marked blocked'));
    if (it.column !== it.status) flags.push(statusBadge(it.status));
    const card = h('a', { class: 'card issue-card' + (it.ready ? ' is-ready' : '') + (it.blocked ? ' is-blocked' : ''), id: 'card-' + it.id,
      href: '#' + route('issue', it.id), dataset: { id: it.id, status: it.status }, draggable: ui.canWrite() ? 'true' : null },
    h('div', { class: 'card-top' }, h('span', { class: 'id' }, it.id), badge('P' + it.priority, 'prio p' + it.priority), badge(it.type, 'type'),
      it.assignee ? h('span', { class: 'assignee', title: 'assignee: ' + it.assignee }, '@' + it.assignee) : null),
    h('div', { class: 'card-title' }, it.title),
    it.description ? h('div', { class: 'card-desc' }, window.SudocodeMarkdown.plain(it.description)) : null,
    flags.length || it.tags.length ? h('div', { class: 'flags' }, flags, it.tags.map((t) => badge(t, 'tag'))) : null,
    it.blocked_by.length ? h('div', { class: 'blockers' }, 'waits for ', it.blocked_by.map((x, k) => [k ? ', ' : '',
      h('span', { class: 'blocker', title: x.id + ' (' + x.status + ')' }, x.title)])) : null,
    ui.cost.known(it.usage) ? h('div', { class: 'cost-line' }, ui.cost.badge(it.usage)) : null,
    task ? h('div', { class: 'agent-line' }, '\u25b6 ', h('span', { class: 'mono' }, task.tool), ' ', ui.taskBadge(task), ' ', h('span', { class: 'id' }, task.id)) : null);
    if (ui.canWrite()) {
      card.addEventListener('dragstart', (e) => {
        e.dataTransfer.setData('text/x-sudocode-issue', it.id);
        e.dataTransfer.effectAllowed = 'move';
        card.classList.add('dragging');
      });
      card.addEventListener('dragend', () => card.classList.remove('dragging'));
    }
    return card;
  }

  function dropTarget(col, st) {
    col.addEventListener('dragover', (e) => {
      if (!e.dataTransfer.types.includes('text/x-sudocode-issue')) return;
      e.preventDefault();
      col.classList.add('drop');
    });
    col.addEventListener('dragleave', () => col.classList.remove('drop'));
    col.addEventListener('drop', (e) => {
      e.preventDefault();
      col.classList.remove('drop');
      const id = e.dataTransfer.getData('text/x-sudocode-issue');
      if (id) move(id, st);
    });
  }

  // move changes an issue's status; into closed it asks for a reason.
  async function move(id, st) {
    if (st === 'closed') { closeDialog(id); return; }
    try {
      await api('/api/issues/' + encodeURIComponent(id), 'PATCH', { status: st });
      const b = await api('/api/issues/' + encodeURIComponent(id));
      if (st !== 'blocked' && b.blocked_by && b.blocked_by.length) {
        toast(id + ' is ' + st.replace(/_/g, ' ') + ', and stays in the blocked column: it waits for ' + b.blocked_by.map((x) => x.title).join(', '));
      } else {
        toast(id + ' moved to ' + st.replace(/_/g, ' '));
      }
      ui.refresh();
    } catch (err) {
      toast(err.message, true);
    }
  }

  // moveFocused moves the focused card one column left or right (the
  // keyboard's drag), keeping the focus on it.
  function moveFocused(step) {
    const card = document.activeElement && document.activeElement.closest && document.activeElement.closest('.issue-card');
    if (!card || !ui.canWrite()) return false;
    const cols = Array.from(document.querySelectorAll('#board .column')).map((c) => c.dataset.status);
    const here = cols.indexOf(card.closest('.column').dataset.status);
    const to = cols[here + step];
    if (to) move(card.dataset.id, to);
    return true;
  }

  function closeDialog(id) {
    const reason = h('input', { id: 'close-reason', type: 'text', required: true, placeholder: 'done in …, duplicate of …, won\u2019t do because …', autocomplete: 'off' });
    const dlg = h('dialog', { class: 'dialog', id: 'close-dialog', 'aria-label': 'Close ' + id });
    const form = h('form', { method: 'dialog', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/api/issues/' + encodeURIComponent(id) + '/close', 'POST', { reason: reason.value.trim() });
        dlg.close();
        toast(id + ' closed');
        ui.refresh();
      } catch (err) {
        toast(err.message, true);
      }
    } },
    h('h2', null, 'Close ' + id),
    h('label', null, 'Reason', reason),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'button primary', id: 'close-confirm' }, 'Close issue'),
      h('button', { type: 'button', class: 'button', onclick: () => dlg.close() }, 'Cancel')));
    dlg.append(form);
    dlg.addEventListener('close', () => dlg.remove());
    document.body.append(dlg);
    dlg.showModal();
    reason.focus();
  }

  // ---- an issue ---------------------------------------------------------

  function relList(it, title, rels, dir) {
    if (!rels || !rels.length) return null;
    return h('div', { class: 'rels' }, h('h3', null, title), h('ul', null, rels.map((r) => {
      const other = dir === 'out' ? r.to : r.from;
      const kind = dir === 'out' ? r.to_type : r.from_type;
      const to = link(route(kind === 'spec' ? 'spec' : 'issue', other), other, 'id');
      const said = dir === 'out' ? 'this issue ' + reads(r.type) + ' ' + other : other + ' ' + reads(r.type) + ' this issue';
      const sentence = dir === 'out' ? ['this issue ' + reads(r.type) + ' ', to] : [to, ' ' + reads(r.type) + ' this issue'];
      return h('li', { dataset: { rel: r.from + ' ' + r.type + ' ' + r.to } }, sentence, ' ', h('span', { class: 'muted', title: 'link type' }, '(' + r.type + ')'),
        ui.canWrite() ? h('button', { type: 'button', class: 'icon unlink', title: 'unlink', 'aria-label': 'remove the link: ' + said, onclick: async () => {
          try {
            await api('/api/links', 'DELETE', { from: r.from, to: r.to, type: r.type });
            ui.refresh();
          } catch (err) { toast(err.message, true); }
        } }, '\u00d7') : null);
    })));
  }

  function linkForm(it) {
    const type = h('select', { id: 'link-type', 'aria-label': 'link type' }, LINK_TYPES.map((t) => h('option', { value: t }, reads(t) + ' (' + t + ')')));
    const to = h('input', { id: 'link-to', type: 'text', placeholder: 'title or id of an issue or spec', required: true, autocomplete: 'off', 'aria-label': 'link to' });
    const toField = pickers.attach(to, pickers.issues(true, it.id));
    return h('form', { class: 'inline-form', id: 'link-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/api/links', 'POST', { from: it.id, to: to.value.trim(), type: type.value });
        to.value = '';
        delete to.dataset.dirty;
        ui.refresh();
      } catch (err) { toast(err.message, true); }
    } }, h('span', { class: 'muted' }, 'this issue '), type, ' ', toField, ' ', h('button', { type: 'submit', class: 'button' }, 'Link'));
  }

  async function renderIssue(box, args) {
    const it = await api('/api/issues/' + encodeURIComponent(args[0] || ''));
    const actions = ui.canWrite() ? h('div', { class: 'actions', id: 'issue-actions' },
      h('a', { class: 'button', id: 'edit-issue', href: '#' + route('edit-issue', it.id), title: 'edit (e)' }, 'Edit'),
      h('label', null, 'status ', h('select', { id: 'issue-status', onchange: (e) => move(it.id, e.target.value) },
        ['open', 'in_progress', 'blocked', 'closed'].map((s) => h('option', { value: s, selected: it.status === s }, s.replace(/_/g, ' '))))),
      it.status !== 'closed' ? h('button', { type: 'button', class: 'button', id: 'close-issue', onclick: () => closeDialog(it.id) }, 'Close\u2026') : null,
      ui.issueExtras ? ui.issueExtras(it) : null) : null;
    box.append(h('p', { class: 'crumbs' }, link('/board', '\u2190 Issues')),
      h('div', { class: 'title-row' }, h('h1', null, it.title), statusBadge(it.status)),
      actions,
      h('dl', { class: 'meta' },
        h('dt', null, 'id'), h('dd', { class: 'id' }, it.id),
        h('dt', null, 'priority'), h('dd', null, 'P' + it.priority),
        h('dt', null, 'type'), h('dd', null, it.type),
        h('dt', null, 'assignee'), h('dd', null, it.assignee || '\u2014'),
        h('dt', null, 'estimate'), h('dd', { id: 'issue-estimate-shown' }, it.estimate == null ? '\u2014' : it.estimate + ' min'),
        h('dt', null, 'tags'), h('dd', null, (it.tags || []).length ? it.tags.map((t) => badge(t, 'tag')) : '\u2014'),
        h('dt', null, 'created'), h('dd', null, when(it.created_at) + ' by ' + (it.created_by || '?')),
        h('dt', null, 'updated'), h('dd', null, when(it.updated_at)),
        it.usage ? [h('dt', null, 'agent cost'), h('dd', null, ui.cost.line(it.usage))] : null,
        it.closed_at ? [h('dt', null, 'closed'), h('dd', { id: 'close-reason-shown' }, when(it.closed_at) + (it.close_reason ? ': ' + it.close_reason : ''))] : null));
    if (it.blocked_by && it.blocked_by.length) {
      box.append(h('div', { class: 'rels blocked-by' }, h('h3', null, 'Waits for'), h('ul', null, it.blocked_by.map((b) =>
        h('li', null, link(route(b.type === 'spec' ? 'spec' : 'issue', b.id), b.id, 'id'), ' ', b.title, ' ', statusBadge(b.status), b.via ? h('span', { class: 'muted' }, ' through its ancestor ' + b.via) : null)))));
    }
    if (it.tasks && it.tasks.length) box.append(issueTasks(it.tasks));
    box.append(h('h3', null, 'Description'), it.description ? markdown(it.description) : h('p', { class: 'muted' }, 'No description.'));
    add(box, relList(it, 'Links from this issue', it.relationships.outgoing, 'out'));
    add(box, relList(it, 'Links to this issue', it.relationships.incoming, 'in'));
    if (ui.canWrite()) box.append(h('h3', null, 'Add a link'), linkForm(it));
    if (it.feedback && it.feedback.length) {
      box.append(h('h3', null, 'Feedback given'), h('ul', { class: 'fb-list' }, it.feedback.map((f) =>
        h('li', null, link(route('spec', f.spec_id), f.spec_id, 'id'), ' line ' + f.anchor.line_number + ' ', badge(f.type, 'fbtype'), ' ', ui.anchorBadge(f.anchor), ' ', f.content))));
    }
    box.append(activity(it));
  }

  // ---- an issue's activity ------------------------------------------------

  // activity is the issue's comments and history in one list, oldest
  // first, and the box to add a comment. Comments are markdown, rendered
  // as DOM nodes (markdown.js), never as HTML.
  function activity(it) {
    const items = (it.comments || []).map((c) => ({ at: c.created_at, el: commentItem(c) }))
      .concat((it.history || []).map((e) => ({ at: e.at, el: historyItem(e) })));
    items.sort((a, b) => new Date(a.at) - new Date(b.at)); // stable: a comment before a change of the same instant
    const list = h('ol', { class: 'activity-list', id: 'activity-list' }, items.map((x) => x.el));
    if (!items.length) list.append(h('li', { class: 'muted empty' }, 'No comments or changes yet.'));
    return h('section', { class: 'activity', id: 'activity', 'aria-label': 'activity' }, h('h3', null, 'Activity'), list,
      ui.canWrite() ? commentForm(it) : null);
  }

  function commentItem(c) {
    return h('li', { class: 'comment', dataset: { id: c.id } },
      h('div', { class: 'who muted small' }, h('strong', null, c.author || '(unknown)'), ' commented ',
        h('span', { title: c.created_at }, when(c.created_at)), c.updated_at !== c.created_at ? ' (edited)' : null),
      markdown(c.body, 'comment-text'));
  }

  function historyItem(e) {
    return h('li', { class: 'event muted small', dataset: { field: e.field } },
      h('strong', null, e.actor || '(unknown)'), ' ', historyWords(e), ' \u00b7 ', h('span', { title: e.at }, when(e.at)));
  }

  // historyWords says a change as the rest of the page does: statuses
  // with spaces, links in the words of READS, a task linked to its page.
  function historyWords(e) {
    const words = (v) => (v == null ? 'none' : String(v).replace(/_/g, ' '));
    const linkWords = (v) => {
      const [from, type, to] = String(v).split(' ');
      return to ? from + ' ' + reads(type) + ' ' + to : String(v);
    };
    switch (e.field) {
      case 'status': return 'changed the status from ' + words(e.from) + ' to ' + words(e.to);
      case 'assignee':
        if (e.from == null) return 'assigned it to ' + e.to;
        if (e.to == null) return 'unassigned ' + e.from;
        return 'reassigned it from ' + e.from + ' to ' + e.to;
      case 'link': return e.to != null ? 'linked: ' + linkWords(e.to) : 'unlinked: ' + linkWords(e.from);
      case 'task': return ['task ', e.task_id ? link(route('task', e.task_id), e.task_id, 'id') : '?', ' ' + words(e.to)];
    }
    return e.field + ': ' + words(e.from) + ' \u2192 ' + words(e.to);
  }

  function commentForm(it) {
    const ed = ui.editor('comment-body', '', 4);
    ed.area.placeholder = 'Add a comment (markdown)';
    ed.area.setAttribute('aria-label', 'comment');
    return h('form', { class: 'form wide', id: 'comment-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/api/issues/' + encodeURIComponent(it.id) + '/comments', 'POST', { body: ed.area.value });
        ed.area.value = '';
        delete ed.area.dataset.dirty;
        ui.refresh();
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    } }, ed.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'comment-save' }, 'Comment')));
  }

  // issueTasks lists the tasks started on an issue, oldest first, as a
  // reviewer tells them apart: a link to each, its agent, its state in
  // words, and when it last changed (the start on hover).
  function issueTasks(tasks) {
    return h('div', { class: 'rels issue-tasks' }, h('h3', null, 'Agent tasks'), h('ul', { id: 'issue-tasks' }, tasks.map((t) =>
      h('li', { dataset: { id: t.id, state: t.state } }, link(route('task', t.id), t.id, 'id'), ' ',
        h('span', { class: 'mono' }, t.agent), ' ', badge(t.state_text, 'st-' + t.state), ' ',
        h('span', { class: 'muted small', title: 'started ' + when(t.created_at) }, when(t.updated_at)), ' ',
        h('span', { class: 'mono small muted' }, t.branch)))));
  }

  // ---- create and edit --------------------------------------------------

  async function renderIssueForm(box, args) {
    const editing = args[0] ? await api('/api/issues/' + encodeURIComponent(args[0])) : null;
    const it = editing || { title: '', description: '', type: 'task', priority: 2, assignee: '', tags: [], estimate: null };
    const title = h('input', { id: 'issue-title', type: 'text', required: true, value: it.title, autocomplete: 'off' });
    const type = h('select', { id: 'issue-type' }, TYPES.map((t) => h('option', { value: t, selected: it.type === t }, t)));
    const prio = h('select', { id: 'issue-priority' }, PRIORITIES.map((p) => h('option', { value: String(p), selected: it.priority === p }, 'P' + p + (p === 0 ? ' (highest)' : ''))));
    const assignee = h('input', { id: 'issue-assignee', type: 'text', value: it.assignee || '', autocomplete: 'off' });
    const tags = h('input', { id: 'issue-tags', type: 'text', value: (it.tags || []).join(', '), placeholder: 'comma separated', autocomplete: 'off' });
    const parent = editing ? null : h('input', { id: 'issue-parent', type: 'text', placeholder: 'title or id (optional)', autocomplete: 'off' });
    // The estimate is the tracker's, in minutes (seed 001).
    const estimate = h('input', { id: 'issue-estimate', type: 'number', min: '0', step: '1', class: 'narrow', value: it.estimate == null ? '' : String(it.estimate), placeholder: 'min',
      title: 'minutes; once set, an estimate can be changed but not removed' });
    const desc = ui.editor('issue-description', it.description, 12);
    const form = h('form', { class: 'form', id: 'issue-form', onsubmit: async (e) => {
      e.preventDefault();
      const body = { title: title.value.trim(), description: desc.area.value, type: type.value, priority: Number(prio.value),
        assignee: assignee.value.trim(), tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean) };
      // An emptied estimate is left as it was: the tracker has no way to
      // clear one.
      if (estimate.value.trim() !== '') body.estimate = Number(estimate.value);
      try {
        let saved;
        if (editing) {
          saved = await api('/api/issues/' + encodeURIComponent(editing.id), 'PATCH', body);
        } else {
          if (!body.assignee) delete body.assignee;
          if (parent.value.trim()) body.parent = parent.value.trim();
          saved = await api('/api/issues', 'POST', body);
        }
        toast((editing ? 'Saved ' : 'Created ') + saved.id);
        location.hash = '#' + route('issue', saved.id);
      } catch (err) {
        toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true);
      }
    } },
    h('label', null, 'Title', title),
    h('div', { class: 'row' }, h('label', null, 'Type', type), h('label', null, 'Priority', prio),
      h('label', null, 'Assignee', pickers.attach(assignee, pickers.assignees(), { onFocus: true })), h('label', null, 'Estimate (minutes)', estimate),
      h('label', null, 'Tags', tags), parent ? h('label', null, 'Parent', pickers.attach(parent, pickers.issues(false))) : null),
    h('label', { for: 'issue-description' }, 'Description (markdown)'), desc.el,
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'button primary', id: 'issue-save' }, editing ? 'Save' : 'Create issue'),
      h('a', { class: 'button', href: editing ? '#' + route('issue', editing.id) : '#/board' }, 'Cancel')));
    box.append(h('p', { class: 'crumbs' }, link('/board', '\u2190 Issues')), h('h1', null, editing ? 'Edit ' + editing.id : 'New issue'), form);
    title.dataset.autofocus = '1';
  }

  // ---- search -----------------------------------------------------------

  async function renderSearch(box, args) {
    const q = args[0] || '';
    box.append(h('p', { class: 'crumbs' }, link('/board', '\u2190 Issues')), h('h1', null, 'Search: ' + q));
    const res = await api('/api/search?q=' + encodeURIComponent(q));
    if (!res.results.length) {
      box.append(h('p', { class: 'muted' }, 'Nothing matches.'));
      return;
    }
    box.append(h('ul', { class: 'search-results', id: 'search-results' }, res.results.map((r) =>
      h('li', null, link(route(r.kind === 'spec' ? 'spec' : 'issue', r.id), r.title, 'card search-hit'), ' ',
        h('span', { class: 'id' }, r.id), ' ', statusBadge(r.status), r.snippet ? h('div', { class: 'muted small' }, r.snippet) : null))));
    if (res.truncated && res.hint) box.append(h('p', { class: 'hint' }, res.hint));
  }

  return { renderBoard, renderIssue, renderIssueForm, renderSearch, moveFocused, filters, clearFilters };
};
