// The help panel `?` opens: every shortcut of the page, in one list,
// closed with Esc (a modal dialog's own key), its Close button or `?`.
// Keep it in step with the keydown handlers of app.js, pickers.js and the
// views.
window.SudocodeHelp = function (ui) {
  'use strict';
  const { h } = ui;

  const KEYS = [
    ['Anywhere', [
      [['?'], 'this help'],
      [['c'], 'new issue'],
      [['/'], 'filter the issues'],
      [['j', 'k'], 'next and previous card, row or search hit'],
      [['Enter'], 'open the card or row in focus'],
      [['e'], 'edit the issue, spec or ruleset shown'],
      [['Esc'], 'close a dialog or a list; leave the filter (it stays)'],
    ]],
    ['On the board', [
      [['Shift', '\u2190'], 'move the card in focus to the column before'],
      [['Shift', '\u2192'], 'move the card in focus to the column after'],
      [['Enter'], 'in the filter: search everything for its text'],
    ]],
    ['In a picker (assignee, parent, link)', [
      [['\u2193', '\u2191'], 'next and previous suggestion'],
      [['Enter'], 'take the suggestion highlighted; with none, the text as typed'],
      [['Esc'], 'close the suggestions'],
    ]],
    ['On a spec or a diff', [
      [['Enter'], 'on a line: give feedback on it, or comment on it'],
    ]],
  ];

  function open() {
    const old = document.getElementById('help-dialog');
    if (old) { old.close(); return; } // ? again closes it
    const dlg = h('dialog', { class: 'dialog help', id: 'help-dialog', 'aria-labelledby': 'help-title' },
      h('h2', { id: 'help-title' }, 'Keyboard shortcuts'),
      KEYS.map(([title, rows]) => h('section', null, h('h3', null, title), h('dl', { class: 'keys' }, rows.map(([keys, what]) => [
        h('dt', null, keys.map((k, i) => [i ? (keys[0] === 'Shift' ? '+' : ' ') : '', h('kbd', null, k)])),
        h('dd', null, what)])))),
      h('p', { class: 'muted small' }, 'The shortcuts wait while you type in a field.'),
      h('div', { class: 'actions' }, h('button', { type: 'button', class: 'button', id: 'help-close', onclick: () => dlg.close() }, 'Close')));
    dlg.addEventListener('keydown', (e) => { if (e.key === '?') { e.preventDefault(); dlg.close(); } });
    dlg.addEventListener('close', () => dlg.remove());
    document.body.append(dlg);
    dlg.showModal();
    document.getElementById('help-close').focus();
  }

  return { open };
};
