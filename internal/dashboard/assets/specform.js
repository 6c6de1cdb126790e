// Creating a spec and moving it through its statuses, from the page: what
// `sudocode spec create` and `spec update --status` do (POST and PATCH
// /api/specs). specs.js shows the spec; app.js passes its helpers in.
window.SudocodeSpecForm = function (ui) {
  'use strict';
  const { h, link, route, api, toast } = ui;
  // The tracker's enumerations (tracker.SpecStatuses, tracker.SpecTypes),
  // in its order; a Go test keeps them the same.
  const STATUSES = ['draft', 'review', 'approved', 'deprecated'];
  const TYPES = ['architecture', 'api', 'database', 'feature', 'research'];

  function options(values, chosen) {
    return values.map((v) => h('option', { value: v, selected: v === chosen }, v));
  }

  // statusPicker changes the status of spec s as soon as one is chosen:
  // one step, as the issue page's status is.
  function statusPicker(s) {
    return h('label', null, 'status ', h('select', { id: 'spec-status', onchange: async (e) => {
      const to = e.target.value;
      try {
        await api('/api/specs/' + encodeURIComponent(s.id), 'PATCH', { status: to });
        toast(s.id + ' is ' + to);
        ui.refresh();
      } catch (err) {
        e.target.value = s.status;
        toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true);
      }
    } }, options(STATUSES, s.status)));
  }

  async function renderNewSpec(box) {
    const title = h('input', { id: 'new-spec-title', type: 'text', required: true, autocomplete: 'off', dataset: { autofocus: '1' } });
    const type = h('select', { id: 'new-spec-type' }, options(TYPES, 'feature'));
    const status = h('select', { id: 'new-spec-status' }, options(STATUSES, 'draft'));
    const prio = h('select', { id: 'new-spec-priority' }, [0, 1, 2, 3, 4].map((p) => h('option', { value: p, selected: p === 2 }, 'P' + p)));
    const tags = h('input', { id: 'new-spec-tags', type: 'text', autocomplete: 'off', placeholder: 'comma separated' });
    const desc = h('input', { id: 'new-spec-description', type: 'text', autocomplete: 'off', placeholder: 'one line on what it settles' });
    const body = ui.editor('new-spec-content', '', 16);
    const form = h('form', { class: 'form wide', id: 'new-spec-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        const s = await api('/api/specs', 'POST', { title: title.value.trim(), type: type.value, status: status.value, priority: Number(prio.value),
          description: desc.value.trim() || undefined, content: body.area.value, tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean) });
        toast('Created ' + s.id + ' (' + s.status + ')');
        location.hash = '#' + route('spec', s.id);
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    } },
    h('label', null, 'Title', title),
    h('div', { class: 'row' }, h('label', null, 'Type', type), h('label', null, 'Status', status), h('label', null, 'Priority', prio),
      h('label', { class: 'grow' }, 'Tags', tags)),
    h('label', null, 'Description', desc),
    h('label', { for: 'new-spec-content' }, 'Markdown'), body.el,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'new-spec-save' }, 'Create'),
      h('a', { class: 'button', href: '#/specs' }, 'Cancel')));
    box.append(h('p', { class: 'crumbs' }, link('/specs', '\u2190 Specs')), h('h1', null, 'New spec'), form);
  }

  return { renderNewSpec, statusPicker };
};
