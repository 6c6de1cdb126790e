// Pickers: a text field that offers what it may hold as you type (an
// issue or spec found by its title, an assignee already used), picked
// with the mouse or the keyboard (↓/↑ move, Enter picks, Esc closes the
// list). What is typed stays allowed: an id or a new name goes through as
// it is, since Enter with nothing highlighted submits the form.
window.SudocodePickers = function (ui) {
  'use strict';
  const { h, api } = ui;
  let serial = 0;

  // attach makes input a combobox over source(text), a promise of options
  // {value, label, hint}; picking one sets the field to its value and
  // shows its label beside the field.
  function attach(input, source, opts) {
    opts = opts || {};
    const listId = (input.id || 'picker-' + ++serial) + '-options';
    const list = h('ul', { class: 'picker-list', id: listId, role: 'listbox', hidden: true });
    const picked = h('span', { class: 'picked muted small', id: (input.id || listId) + '-picked' }, opts.shown || '');
    const wrap = h('span', { class: 'picker' }, input, list);
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-expanded', 'false');
    input.setAttribute('aria-controls', listId);
    let options = [];
    let at = -1;
    let timer = null;
    let asked = 0;
    let picking = false; // the Enter that picked, until its key is up

    const close = () => {
      list.hidden = true;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
      at = -1;
    };
    const highlight = (i) => {
      at = i;
      list.querySelectorAll('[role=option]').forEach((li, k) => li.setAttribute('aria-selected', String(k === i)));
      if (i >= 0) {
        const li = list.children[i];
        input.setAttribute('aria-activedescendant', li.id);
        li.scrollIntoView({ block: 'nearest' });
      }
    };
    const pick = (o) => {
      input.value = o.value;
      input.dataset.dirty = '1'; // kept over a live re-render, as typed text is
      picked.textContent = o.label && o.label !== o.value ? o.label : '';
      close();
      if (opts.onPick) opts.onPick(o);
    };
    const show = async () => {
      const mine = ++asked;
      let found;
      try { found = await source(input.value.trim()); } catch (err) { found = []; }
      if (mine !== asked || document.activeElement !== input) return; // a newer question, or the field left
      options = found;
      list.replaceChildren(...options.map((o, k) => h('li', { role: 'option', id: listId + '-' + k, 'aria-selected': 'false', dataset: { value: o.value },
        onmousedown: (e) => { e.preventDefault(); pick(o); } }, // before the field's blur
      h('span', { class: 'label' }, o.label), o.hint ? h('span', { class: 'hint-text muted small' }, o.hint) : null)));
      list.hidden = !options.length;
      input.setAttribute('aria-expanded', String(!!options.length));
      at = -1;
    };
    input.addEventListener('input', () => {
      picked.textContent = '';
      clearTimeout(timer);
      timer = setTimeout(show, 150);
    });
    // onFocus opens the list when the field is entered: true, or a
    // function saying whether to.
    input.addEventListener('focus', () => { if (typeof opts.onFocus === 'function' ? opts.onFocus() : opts.onFocus) show(); });
    input.addEventListener('blur', () => { clearTimeout(timer); asked++; close(); });
    input.addEventListener('keydown', (e) => {
      const open = !list.hidden && options.length > 0;
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (!open) { show(); return; }
        const n = options.length;
        highlight(e.key === 'ArrowDown' ? (at + 1) % n : (at <= 0 ? n - 1 : at - 1));
      } else if (e.key === 'Enter' && open && at >= 0) {
        e.preventDefault(); // the pick, not the form's submit
        picking = true;
        pick(options[at]);
      } else if (e.key === 'Escape' && open) {
        e.preventDefault();
        e.stopPropagation(); // closes the list only, not a dialog around it
        close();
      }
    });
    // A keypress sent apart from its keydown (DevTools' input, some
    // input methods) would still submit the form.
    input.addEventListener('keypress', (e) => { if (picking && e.key === 'Enter') e.preventDefault(); });
    input.addEventListener('keyup', (e) => { if (e.key === 'Enter') picking = false; });
    return h('span', { class: 'picker-field' }, wrap, picked);
  }

  // issues offers the issues (and specs, with specs) whose title or
  // description holds the words typed, as the tracker's search finds them.
  function issues(withSpecs, except) {
    return async (text) => {
      if (!text) return [];
      const res = await api('/api/search?q=' + encodeURIComponent(text));
      return res.results.filter((r) => (withSpecs || r.kind === 'issue') && r.id !== except).slice(0, 12)
        .map((r) => ({ value: r.id, label: r.title, hint: r.id + ' \u00b7 ' + String(r.status).replace(/_/g, ' ') + (r.kind === 'spec' ? ' \u00b7 spec' : '') }));
    };
  }

  // assignees offers the names issues are assigned to (asked once per
  // field), those holding the text typed, and the text itself as a new
  // name unless opts.known (a filter, which only finds names in use).
  function assignees(opts) {
    opts = opts || {};
    let known = null;
    return async (text) => {
      if (!known) known = (await api('/api/assignees')).assignees;
      const t = text.toLowerCase();
      const out = known.filter((a) => a.key.toLowerCase().includes(t)).slice(0, 12)
        .map((a) => ({ value: a.key, label: a.key, hint: a.count + (a.count === 1 ? ' issue' : ' issues') }));
      if (text && !opts.known && !known.some((a) => a.key === text)) out.push({ value: text, label: text, hint: 'new assignee' });
      return out;
    };
  }

  return { attach, issues, assignees };
};
