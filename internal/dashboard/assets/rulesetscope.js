// A ruleset's scope on the dashboard: where it applies (globs, or always)
// and which agents' rule files it goes to (targets), edited in the
// ruleset form, with the files of this project each glob picks, asked of
// the server (/api/files/matching: the project's tracked files, as export
// and the loop's rulesets match them). rulesets.js uses it.
window.SudocodeRulesetScope = function (ui) {
  'use strict';
  const { h, api, badge } = ui;
  // rulesets.Agents, in its order; a Go test keeps them the same.
  const AGENTS = ['claude', 'agents', 'cursor', 'copilot', 'gemini', 'windsurf'];

  function globsOf(text) { return text.split('\n').map((g) => g.trim()).filter(Boolean); }

  // matches shows, under the globs, what each picks in this project.
  async function matches(box, globs) {
    if (!globs.length) {
      box.replaceChildren(h('p', { class: 'muted small' }, 'No globs: the ruleset applies everywhere.'));
      return;
    }
    box.replaceChildren(h('p', { class: 'muted small' }, 'Matching\u2026'));
    try {
      const m = await api('/api/files/matching?' + globs.map((g) => 'glob=' + encodeURIComponent(g)).join('&'));
      box.replaceChildren(h('ul', { class: 'glob-matches' }, m.matches.map((g) => h('li', { dataset: { glob: g.glob, total: g.total } },
        h('code', null, g.glob), ' ', badge(g.total + (g.total === 1 ? ' file' : ' files'), g.total ? 'ready' : 'blocked'),
        g.files.length ? h('div', { class: 'mono small muted' }, g.files.join('  ') + (g.total > g.files.length ? '  \u2026 and ' + (g.total - g.files.length) + ' more' : '')) : null))),
      h('p', { class: 'muted small' }, 'Among the ' + m.scanned + ' files git tracks in this project' + (m.partial ? ' (the first ones; there are more)' : '') + '.'));
    } catch (err) {
      box.replaceChildren(h('p', { class: 'error-text small', id: 'glob-error' }, err.message));
    }
  }

  // fields are the scope's inputs for ruleset r; value() is the scope to
  // send (every field, so that clearing one clears it).
  function fields(r) {
    const globs = h('textarea', { id: 'ruleset-globs', rows: 3, class: 'mono', placeholder: 'one per line, from the repository root: **/*.go, web/**', spellcheck: 'false' });
    globs.value = (r.globs || []).join('\n');
    const always = h('input', { type: 'checkbox', id: 'ruleset-always', checked: !!r.always });
    const targets = AGENTS.map((a) => h('label', { class: 'check' }, h('input', { type: 'checkbox', id: 'ruleset-target-' + a, value: a, checked: (r.targets || []).includes(a), dataset: { target: a } }), ' ' + a));
    const found = h('div', { id: 'glob-matches', role: 'status' });
    let timer = 0;
    globs.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => matches(found, globsOf(globs.value)), 300); });
    matches(found, globsOf(globs.value));
    const el = h('fieldset', { class: 'scope', id: 'ruleset-scope' }, h('legend', null, 'Scope'),
      h('label', { for: 'ruleset-globs' }, 'Globs (where it applies; none: everywhere)'), globs, found,
      h('label', { class: 'check' }, always, ' Always applied, without being asked'),
      h('div', { class: 'targets' }, h('span', null, 'Targets (none: every agent) '), targets));
    return {
      el: el,
      value: () => ({ globs: globsOf(globs.value), always: always.checked,
        targets: targets.map((l) => l.querySelector('input')).filter((c) => c.checked).map((c) => c.value) }),
    };
  }

  // summary is the scope as the ruleset's page shows it.
  function summary(r) {
    const parts = [];
    if (r.always) parts.push(badge('always', 'ready'));
    parts.push(h('span', null, (r.globs || []).length ? ['applies to ', (r.globs || []).map((g, k) => [k ? ', ' : '', h('code', null, g)])] : 'applies everywhere'));
    parts.push(h('span', null, (r.targets || []).length ? ' \u00b7 for ' + r.targets.join(', ') : ' \u00b7 for every agent'));
    const box = h('div', { class: 'scope-summary', id: 'ruleset-scope-summary' }, parts);
    if ((r.globs || []).length) {
      const found = h('div', { id: 'glob-matches' });
      matches(found, r.globs);
      box.append(found);
    }
    return box;
  }

  return { fields, summary };
};
