// Rulesets on the dashboard: the library, a ruleset with its history and
// the diff between two versions, and the form that creates or edits one
// (markdown with a preview). Every change goes through the ruleset
// library's own code. app.js passes its helpers in.
window.SudocodeRulesets = function (ui) {
  'use strict';
  const { h, link, route, api, badge, problem, markdown, when, toast } = ui;
  const enc = encodeURIComponent;
  const scopes = window.SudocodeRulesetScope(ui);

  async function renderRulesets(box) {
    box.append(h('div', { class: 'title-row' }, h('h1', null, 'Rulesets'),
      ui.canWrite() ? h('a', { class: 'button primary right', id: 'new-ruleset', href: '#/new-ruleset' }, 'New ruleset') : null));
    let list;
    try {
      list = await api('/api/rulesets');
    } catch (err) {
      box.append(problem(err, 'The ruleset library is'));
      return;
    }
    if (!list.rulesets.length) {
      box.append(h('p', { class: 'muted' }, 'The library is empty. Add one here, with the upsert_ruleset tool or `sudocode rulesets put NAME -d DESC -f FILE`.'));
      return;
    }
    box.append(h('div', { class: 'grid', id: 'ruleset-list' }, list.rulesets.map((r) =>
      h('a', { class: 'card ruleset-card', href: '#' + route('ruleset', r.name), dataset: { name: r.name } },
        h('div', { class: 'card-title mono' }, r.name),
        h('div', { class: 'card-desc' }, r.description),
        h('div', { class: 'flags' }, (r.tags || []).map((t) => badge(t, 'tag'))),
        h('div', { class: 'muted small' }, 'modified ' + when(r.last_modified))))));
  }

  async function renderRuleset(box, args) {
    const name = args[0] || '';
    const r = await api('/api/rulesets/' + enc(name));
    box.append(h('p', { class: 'crumbs' }, link('/rulesets', '\u2190 Rulesets')),
      h('h1', { class: 'mono' }, r.name),
      h('p', { class: 'lead' }, r.description),
      h('p', { class: 'meta-line' }, (r.tags || []).map((t) => [badge(t, 'tag'), ' ']),
        'created ' + when(r.created_at) + ' \u00b7 modified ' + when(r.last_modified)),
      scopes.summary(r),
      ui.canWrite() ? h('div', { class: 'actions' },
        h('a', { class: 'button', id: 'edit-ruleset', href: '#' + route('edit-ruleset', r.name), title: 'edit (e)' }, 'Edit'),
        h('button', { type: 'button', class: 'button', id: 'delete-ruleset', onclick: () => remove(r.name) }, 'Delete\u2026')) : null,
      markdown(r.markdown, 'ruleset-body'));
    box.append(await history(r.name));
  }

  async function remove(name) {
    const typed = await ui.ask('Delete ' + name + '?', 'Type the name to confirm; the history keeps its versions', 'Delete', true);
    if (typed === null) return;
    if (typed !== name) { toast('The name typed is not ' + name + '; nothing was deleted.', true); return; }
    try {
      await api('/api/rulesets/' + enc(name), 'DELETE');
      toast('Deleted ' + name);
      location.hash = '#/rulesets';
    } catch (err) { toast(err.message, true); }
  }

  // history lists the versions; two of them (or one and the current
  // ruleset) are compared as a unified diff, and one can be restored.
  async function history(name) {
    const sec = h('section', { class: 'history', id: 'ruleset-history' }, h('h3', null, 'History'));
    let hist;
    try {
      hist = await api('/api/rulesets/' + enc(name) + '/history');
    } catch (err) {
      sec.append(problem(err));
      return sec;
    }
    const versions = hist.changes.filter((c) => c.version && c.action !== 'deleted');
    if (!versions.length) {
      sec.append(h('p', { class: 'muted' }, 'No versions kept yet.'));
      return sec;
    }
    const pick = (id, sel) => h('select', { id: id, 'aria-label': id.replace('-', ' ') },
      h('option', { value: '0' }, 'current'), versions.map((c) => h('option', { value: String(c.version), selected: c.version === sel }, 'version ' + c.version)));
    const from = pick('diff-from', versions.length > 1 ? versions[1].version : versions[0].version);
    const to = pick('diff-to', 0);
    const out = h('div', { id: 'ruleset-diff' });
    const show = async () => {
      try {
        const d = await api('/api/rulesets/' + enc(name) + '/diff?from=' + from.value + '&to=' + to.value);
        out.replaceChildren(d.diff ? ui.diffView(d.diff) : h('p', { class: 'muted' }, 'The two are the same.'));
      } catch (err) { out.replaceChildren(problem(err)); }
    };
    sec.append(h('table', { class: 'list' },
      h('thead', null, h('tr', null, ['version', 'change', 'by', 'when', ''].map((c) => h('th', null, c)))),
      h('tbody', null, hist.changes.map((c) => h('tr', { dataset: { version: c.version || '' } },
        h('td', null, c.version ? String(c.version) : '\u2014'),
        h('td', null, c.action + (c.fields && c.fields.length ? ' (' + c.fields.join(', ') + ')' : '') + (c.restored ? ', restoring ' + c.restored : '')),
        h('td', null, c.by || '?'), h('td', { class: 'small' }, when(c.time)),
        h('td', null, ui.canWrite() && c.version && c.action !== 'deleted' ? h('button', { type: 'button', class: 'button small', dataset: { restore: c.version }, onclick: async () => {
          try {
            await api('/api/rulesets/' + enc(name) + '/restore', 'POST', { version: c.version });
            toast('Restored version ' + c.version);
          } catch (err) { toast(err.message, true); }
        } }, 'Restore') : null))))),
    h('div', { class: 'inline-form' }, 'Compare ', from, ' with ', to, ' ', h('button', { type: 'button', class: 'button', id: 'show-diff', onclick: show }, 'Show diff')),
    out);
    return sec;
  }

  async function renderRulesetForm(box, args) {
    const editing = args[0] ? await api('/api/rulesets/' + enc(args[0])) : null;
    const r = editing || { name: '', description: '', markdown: '', tags: [] };
    const name = editing ? null : h('input', { id: 'ruleset-name', type: 'text', required: true, placeholder: 'letters, digits, _ and -', autocomplete: 'off' });
    const desc = h('input', { id: 'ruleset-description', type: 'text', required: true, value: r.description, autocomplete: 'off' });
    const tags = h('input', { id: 'ruleset-tags', type: 'text', value: (r.tags || []).join(', '), placeholder: 'comma separated', autocomplete: 'off' });
    const body = ui.editor('ruleset-markdown', r.markdown, 18);
    const scope = scopes.fields(r);
    const form = h('form', { class: 'form wide', id: 'ruleset-form', onsubmit: async (e) => {
      e.preventDefault();
      const change = Object.assign({ description: desc.value.trim(), markdown: body.area.value, tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean) }, scope.value());
      const target = editing ? editing.name : name.value.trim();
      try {
        if (editing) await api('/api/rulesets/' + enc(target), 'PATCH', change);
        else await api('/api/rulesets', 'POST', Object.assign({ name: target }, change));
        toast((editing ? 'Saved ' : 'Created ') + target);
        location.hash = '#' + route('ruleset', target);
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    } },
    name ? h('label', null, 'Name', name) : null,
    h('label', null, 'Description', desc), h('label', null, 'Tags', tags), scope.el,
    h('label', { for: 'ruleset-markdown' }, 'Markdown'), body.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'ruleset-save' }, editing ? 'Save' : 'Create ruleset'),
      h('a', { class: 'button', href: editing ? '#' + route('ruleset', editing.name) : '#/rulesets' }, 'Cancel')));
    box.append(h('p', { class: 'crumbs' }, link('/rulesets', '\u2190 Rulesets')), h('h1', null, editing ? 'Edit ' + editing.name : 'New ruleset'), form);
    (name || body.area).dataset.autofocus = '1';
  }

  return { renderRulesets, renderRuleset, renderRulesetForm };
};
