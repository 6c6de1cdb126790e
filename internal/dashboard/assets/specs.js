// Specs on the dashboard: the list, a spec with its feedback at the
// anchored lines (feedback given by selecting a line, and moved through
// its statuses), and the markdown editor, whose save relocates anchors as
// the CLI does. app.js passes its helpers in.
window.SudocodeSpecs = function (ui) {
  'use strict';
  const { h, link, route, api, badge, statusBadge, problem, markdown, when, toast } = ui;
  const refresh = ui.refresh;
  // Seed 001's order; the first, ambiguity, is its default (as in the CLI and MCP).
  const FEEDBACK_TYPES = ['ambiguity', 'missing_requirement', 'technical_constraint', 'suggestion', 'question'];
  let lastIssue = ''; // the issue the last feedback came from
  // openAt is the line whose feedback form is open, kept across the live
  // re-renders so a change elsewhere never closes a half-written form.
  let openAt = null;
  let specShown = null;
  const specForm = window.SudocodeSpecForm(ui);

  async function renderSpecs(box) {
    box.append(h('div', { class: 'title-row' }, h('h1', null, 'Specs'),
      ui.canWrite() ? h('a', { class: 'button primary right', id: 'new-spec', href: '#/new-spec' }, 'New spec') : null));
    let list;
    try {
      list = await api('/api/specs');
    } catch (err) {
      box.append(problem(err, 'The tracker is'));
      return;
    }
    if (!list.specs.length) {
      box.append(h('p', { class: 'muted' }, 'No specs yet. Create one here, with `sudocode spec create` or the create_spec tool.'));
      return;
    }
    box.append(h('table', { class: 'list', id: 'spec-list' },
      h('thead', null, h('tr', null, ['id', 'title', 'status', 'type', 'priority'].map((c) => h('th', null, c)))),
      h('tbody', null, list.specs.map((s) => h('tr', { dataset: { id: s.id } },
        h('td', null, link(route('spec', s.id), s.id, 'id')),
        h('td', null, link(route('spec', s.id), s.title)),
        h('td', null, statusBadge(s.status)), h('td', null, s.type), h('td', null, 'P' + s.priority))))));
    if (list.truncated && list.hint) box.append(h('p', { class: 'hint' }, list.hint));
  }

  function anchorBadge(a) {
    const st = a.anchor_status;
    let title = 'anchored at line ' + a.line_number;
    if (st === 'relocated') title = 'moved from line ' + a.original_location.line_number + ' to line ' + a.line_number;
    if (st === 'stale') title = 'its place in the spec was not found again; relocate it with `sudocode feedback relocate`';
    return badge(st, 'anchor-' + st, title);
  }

  function feedbackCard(f) {
    return h('div', { class: 'feedback fb-' + f.status + ' anchor-' + f.anchor.anchor_status, dataset: { id: f.id, line: f.anchor.line_number } },
      h('div', { class: 'fb-head' },
        badge(f.type.replace(/_/g, ' '), 'fbtype'), statusBadge(f.status), anchorBadge(f.anchor),
        h('span', { class: 'muted' }, ' from '), link(route('issue', f.issue_id), f.issue_id, 'id'),
        f.agent ? h('span', { class: 'muted' }, ' \u00b7 ' + f.agent) : null,
        h('span', { class: 'muted right' }, when(f.created_at))),
      markdown(f.content, 'fb-body'),
      f.resolution ? h('p', { class: 'resolution' }, 'Resolution: ' + f.resolution) : null,
      ui.canWrite() && (f.status === 'open' || f.status === 'acknowledged') ? h('div', { class: 'actions fb-actions' },
        f.status === 'open' ? h('button', { type: 'button', class: 'button small', dataset: { act: 'acknowledged' }, onclick: () => setStatus(f, 'acknowledged') }, 'Acknowledge') : null,
        h('button', { type: 'button', class: 'button small', dataset: { act: 'resolved' }, onclick: () => setStatus(f, 'resolved') }, 'Resolve\u2026'),
        h('button', { type: 'button', class: 'button small', dataset: { act: 'wont_fix' }, onclick: () => setStatus(f, 'wont_fix') }, 'Won\u2019t fix\u2026')) : null);
  }

  // setStatus moves feedback on; resolving or declining asks for a word
  // on why (kept as its resolution).
  async function setStatus(f, st) {
    let resolution;
    if (st !== 'acknowledged') {
      resolution = await ui.ask(st === 'resolved' ? 'Resolve feedback' : 'Won\u2019t fix', 'Resolution (optional)', st === 'resolved' ? 'Resolve' : 'Won\u2019t fix', false);
      if (resolution === null) return;
    }
    try {
      await api('/api/feedback/' + encodeURIComponent(f.id) + '/status', 'POST', resolution ? { status: st, resolution: resolution } : { status: st });
      toast('Feedback ' + st.replace(/_/g, ' '));
      ui.refresh();
    } catch (err) { toast(err.message, true); }
  }

  // formAt puts the feedback form under a line of the spec shown.
  function formAt(line) {
    const n = Number(line.dataset.line);
    const form = feedbackForm(specShown, n, () => { openAt = null; form.remove(); line.focus(); });
    line.after(form);
    return form;
  }

  // feedbackForm adds feedback anchored at line n, given by an issue.
  function feedbackForm(s, n, done) {
    const issue = h('input', { id: 'fb-issue', type: 'text', required: true, placeholder: 'issue id', value: lastIssue, autocomplete: 'off', 'aria-label': 'from issue' });
    const type = h('select', { id: 'fb-type', 'aria-label': 'feedback type' }, FEEDBACK_TYPES.map((t) => h('option', { value: t }, t.replace(/_/g, ' '))));
    const content = h('textarea', { id: 'fb-content', rows: 3, required: true, placeholder: 'What is unclear, missing or wrong at line ' + n + '?', 'aria-label': 'feedback' });
    const form = h('form', { class: 'fb-form', id: 'fb-form', dataset: { line: n }, onsubmit: async (e) => {
      e.preventDefault();
      try {
        lastIssue = issue.value.trim();
        await api('/api/specs/' + encodeURIComponent(s.id) + '/feedback', 'POST', { issue_id: lastIssue, line: n, type: type.value, content: content.value });
        toast('Feedback added at line ' + n);
        done();
        ui.refresh();
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    } },
    h('div', { class: 'row' }, h('strong', null, 'Feedback at line ' + n), ' from ', issue, type),
    content,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'fb-add' }, 'Add feedback'),
      h('button', { type: 'button', class: 'button', onclick: done }, 'Cancel')));
    form.addEventListener('keydown', (e) => { if (e.key === 'Escape') done(); });
    return form;
  }

  let specMode = 'lines';

  async function renderSpec(box, args) {
    const s = await api('/api/specs/' + encodeURIComponent(args[0] || ''));
    specShown = s;
    if (openAt && openAt.spec !== s.id) openAt = null;
    box.append(h('p', { class: 'crumbs' }, link('/specs', '\u2190 Specs')),
      h('div', { class: 'title-row' }, h('h1', null, s.title), statusBadge(s.status)),
      h('p', { class: 'meta-line' }, h('span', { class: 'id' }, s.id), ' \u00b7 ' + s.type + ' \u00b7 P' + s.priority + ' \u00b7 ',
        h('span', { class: 'path' }, '.sudocode/' + s.file_path), ' \u00b7 updated ' + when(s.updated_at),
        ' \u00b7 ', h('span', { id: 'open-feedback' }, s.open_feedback + ' open feedback'), ' of ' + s.feedback.length),
      ui.canWrite() ? h('div', { class: 'actions' }, h('a', { class: 'button', id: 'edit-spec', href: '#' + route('edit-spec', s.id), title: 'edit (e)' }, 'Edit'),
        specForm.statusPicker(s),
        h('span', { class: 'muted small' }, 'Click a line (or focus it and press Enter) to give feedback there.')) : null);
    box.append(h('div', { class: 'rels', id: 'implementers' }, h('h3', null, 'Implemented by'), s.implementers.length
      ? h('ul', null, s.implementers.map((i) => h('li', null, link(route('issue', i.id), i.id, 'id'), ' ', i.title, ' ', statusBadge(i.status))))
      : h('p', { class: 'muted' }, 'No issue implements this spec yet (link one with the type implements).')));
    if (s.description) box.append(markdown(s.description, 'spec-desc'));
    const stale = s.feedback.filter((f) => f.anchor.anchor_status === 'stale');
    if (stale.length) {
      box.append(h('section', { class: 'stale-box', id: 'stale-anchors' },
        h('h3', null, '\u26a0 ' + stale.length + ' stale anchor' + (stale.length > 1 ? 's' : '')),
        h('p', { class: 'hint' }, 'The text this feedback pointed at was not found again after the spec changed. Re-anchor with `sudocode feedback relocate ID --line N`.'),
        stale.map((f) => h('div', { class: 'stale-item' },
          h('p', { class: 'muted' }, 'was at line ' + f.anchor.original_location.line_number +
            (f.anchor.section_heading ? ' under \u201c' + f.anchor.section_heading + '\u201d' : '') + ': ',
          h('code', null, f.anchor.text_snippet)),
          feedbackCard(f)))));
    }
    const tabs = h('div', { class: 'tabs' },
      h('button', { type: 'button', class: specMode === 'lines' ? 'on' : '', onclick: () => { specMode = 'lines'; refresh(); } }, 'Source with feedback'),
      h('button', { type: 'button', class: specMode === 'rendered' ? 'on' : '', onclick: () => { specMode = 'rendered'; refresh(); } }, 'Rendered'));
    box.append(tabs);
    if (specMode === 'rendered') {
      box.append(markdown(s.content, 'spec-body'));
      return;
    }
    const byLine = new Map();
    for (const f of s.feedback) {
      if (f.anchor.anchor_status === 'stale') continue;
      const n = f.location ? f.location.line_number : f.anchor.line_number;
      if (!byLine.has(n)) byLine.set(n, []);
      byLine.get(n).push(f);
    }
    const lines = (s.content || '').replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
    const src = h('div', { class: 'source', id: 'spec-source' });
    let fence = false;
    lines.forEach((text, k) => {
      const n = k + 1;
      if (/^ {0,3}(```|~~~)/.test(text)) fence = !fence;
      const heading = !fence && /^ {0,3}#{1,6}(\s|$)/.test(text);
      const fbs = byLine.get(n) || [];
      const line = h('div', { class: 'line' + (heading ? ' heading' : '') + (fbs.length ? ' has-fb' : ''), dataset: { line: n } },
        h('span', { class: 'ln' }, String(n)), h('span', { class: 'text' }, text || ' '));
      if (ui.canWrite()) {
        line.tabIndex = 0;
        line.id = 'line-' + n;
        const open = () => {
          const old = document.getElementById('fb-form');
          if (old) old.remove();
          openAt = { spec: s.id, line: n };
          const form = formAt(line);
          (lastIssue ? form.querySelector('#fb-content') : form.querySelector('#fb-issue')).focus();
        };
        line.addEventListener('click', (e) => { if (!window.getSelection().toString()) open(); else e.preventDefault(); });
        line.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); open(); } });
      }
      src.append(line);
      if (ui.canWrite() && openAt && openAt.spec === s.id && openAt.line === n) formAt(line);
      if (fbs.length) src.append(h('div', { class: 'line-fb' }, fbs.map(feedbackCard)));
      byLine.delete(n);
    });
    box.append(src);
    // Anchors past the end (the spec shrank and nothing relocated them yet).
    const rest = [];
    byLine.forEach((v) => rest.push.apply(rest, v));
    if (rest.length) box.append(h('h3', null, 'Feedback past the end of the spec'), rest.map(feedbackCard));
  }


  // renderSpecForm edits a spec's title and markdown; saving goes through
  // the store's update, which relocates the feedback anchors.
  async function renderSpecForm(box, args) {
    const s = await api('/api/specs/' + encodeURIComponent(args[0] || ''));
    const title = h('input', { id: 'spec-title', type: 'text', required: true, value: s.title, autocomplete: 'off' });
    const body = ui.editor('spec-content', s.content, 24);
    const form = h('form', { class: 'form wide', id: 'spec-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        await api('/api/specs/' + encodeURIComponent(s.id), 'PATCH', { title: title.value.trim(), content: body.area.value });
        toast('Saved ' + s.id + '; feedback anchors relocated');
        location.hash = '#' + route('spec', s.id);
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    } },
    h('label', null, 'Title', title), h('label', { for: 'spec-content' }, 'Markdown'), body.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'spec-save' }, 'Save'),
      h('a', { class: 'button', href: '#' + route('spec', s.id) }, 'Cancel')));
    box.append(h('p', { class: 'crumbs' }, link(route('spec', s.id), '\u2190 ' + s.title)), h('h1', null, 'Edit ' + s.id), form);
    body.area.dataset.autofocus = '1';
  }

  return { renderSpecs, renderSpec, renderSpecForm, anchorBadge, renderNewSpec: specForm.renderNewSpec };
};
