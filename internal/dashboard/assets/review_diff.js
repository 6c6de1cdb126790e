// The review's diff: a task's unified diff read into files and lines, a
// tree of the changed files with their added and removed counts, and each
// file drawn unified or side by side, highlighted (highlight.js). Lines of
// the new side carry their file and line number (data-file, data-line):
// the comments (review.js) are placed under them and opened from them.
window.SudocodeReviewDiff = function (ui) {
  'use strict';
  const { h } = ui;
  const hl = window.SudocodeHighlight;

  // parse reads git's unified diff into files: {name, status, add, del,
  // hunks: [{head, lines: [{kind: add|del|ctx|note, text, o, n}]}]}.
  function parse(text) {
    const files = [];
    let f = null;
    let hunk = null;
    let o = 0;
    let n = 0;
    for (const line of text.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('diff --git ')) {
        f = { name: line.replace(/^diff --git a\/.* b\//, ''), status: '', add: 0, del: 0, hunks: [] };
        files.push(f);
        hunk = null;
        continue;
      }
      if (!f) continue;
      if (!hunk || line.startsWith('@@')) {
        if (line.startsWith('@@')) {
          const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
          o = m ? Number(m[1]) : 0;
          n = m ? Number(m[2]) : 0;
          hunk = { head: line, lines: [] };
          f.hunks.push(hunk);
        } else if (line.startsWith('+++ ') && line !== '+++ /dev/null') f.name = line.slice(4).replace(/^b\//, '');
        else if (line.startsWith('new file')) f.status = 'added';
        else if (line.startsWith('deleted file')) f.status = 'deleted';
        else if (line.startsWith('rename from')) f.status = 'renamed';
        else if (line.startsWith('Binary files')) f.status = 'binary';
        continue;
      }
      if (line.startsWith('+')) { hunk.lines.push({ kind: 'add', text: line.slice(1), n: n++ }); f.add++; }
      else if (line.startsWith('-')) { hunk.lines.push({ kind: 'del', text: line.slice(1), o: o++ }); f.del++; }
      else if (line.startsWith('\\')) hunk.lines.push({ kind: 'note', text: line });
      else hunk.lines.push({ kind: 'ctx', text: line.slice(1), o: o++, n: n++ });
    }
    return files;
  }

  // code is a line's text, highlighted.
  function code(text, lang, state) {
    return h('span', { class: 'code' }, hl.tokens(text, lang, state).map(([cls, t]) => cls ? h('span', { class: 'tk-' + cls }, t) : t));
  }

  // gutter is a line number, drawn by CSS from data-n so that the line's
  // text (what a copy takes) is only the diff's.
  function gutter(n) { return h('span', { class: 'ln', dataset: { n: n === undefined ? '' : String(n) } }); }

  // commentable marks el as the place of new line n of file; a comment
  // can be opened from it unless the line is blank (an anchor needs text
  // to find its line again).
  function commentable(el, file, n, onLine, text) {
    el.dataset.file = file;
    el.dataset.line = n;
    if (!onLine || !text.trim()) return;
    el.tabIndex = 0;
    el.title = 'comment on ' + file + ':' + n;
    const at = { file: file, line: n, text: text };
    el.addEventListener('click', (e) => { if (!e.target.closest('.code-comment, .diff-comment')) onLine(at, el); });
    el.addEventListener('keydown', (e) => { if (e.key === 'Enter' && e.target === el) { e.preventDefault(); onLine(at, el); } });
  }

  const signs = { add: '+', del: '-', ctx: ' ', note: '' };

  function unified(f, onLine) {
    const pre = h('pre', { class: 'diff review-unified' + (onLine ? ' commentable' : '') });
    const lang = hl.lang(f.name);
    for (const hk of f.hunks) {
      pre.append(h('span', { class: 'dl hunk' }, gutter(), gutter(), hk.head + '\n'));
      const olds = {};
      const news = {};
      for (const l of hk.lines) {
        const st = l.kind === 'del' ? olds : news;
        const row = h('span', { class: 'dl ' + l.kind }, gutter(l.o), gutter(l.n), signs[l.kind],
          l.kind === 'note' ? l.text : code(l.text, lang, st), '\n');
        if (l.kind === 'ctx') olds.block = news.block;
        if (l.n !== undefined) commentable(row, f.name, l.n, onLine, l.text);
        pre.append(row);
      }
    }
    return pre;
  }

  // split pairs each run of removed lines with the added lines after it,
  // side by side; context lines are on both sides.
  function split(f, onLine) {
    const box = h('div', { class: 'diff review-split' + (onLine ? ' commentable' : '') });
    const lang = hl.lang(f.name);
    const side = (l, st) => l ? h('div', { class: 'side ' + l.kind }, gutter(l.kind === 'add' ? l.n : l.o), code(l.text, lang, st)) :
      h('div', { class: 'side none' });
    for (const hk of f.hunks) {
      box.append(h('div', { class: 'srow hunk' }, h('div', { class: 'side' }, hk.head)));
      const olds = {};
      const news = {};
      const ls = hk.lines.filter((l) => l.kind !== 'note');
      for (let i = 0; i < ls.length;) {
        if (ls[i].kind === 'ctx') {
          const l = ls[i++];
          const right = h('div', { class: 'side ctx' }, gutter(l.n), code(l.text, lang, news));
          const row = h('div', { class: 'srow' }, h('div', { class: 'side ctx' }, gutter(l.o), code(l.text, lang, olds)), right);
          commentable(row, f.name, l.n, onLine, l.text);
          box.append(row);
          continue;
        }
        const dels = [];
        const adds = [];
        while (i < ls.length && ls[i].kind === 'del') dels.push(ls[i++]);
        while (i < ls.length && ls[i].kind === 'add') adds.push(ls[i++]);
        for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
          const a = adds[k];
          const row = h('div', { class: 'srow' }, side(dels[k], olds), side(a, news));
          if (a) commentable(row, f.name, a.n, onLine, a.text);
          box.append(row);
        }
      }
    }
    return box;
  }

  // tree lists the files by folder, each with its counts and the number
  // of comments on it; pick(name) is called with the file clicked.
  function tree(files, counts, pick) {
    const root = { dirs: {}, files: [] };
    for (const f of files) {
      const parts = f.name.split('/');
      let d = root;
      for (const p of parts.slice(0, -1)) d = d.dirs[p] = d.dirs[p] || { dirs: {}, files: [] };
      d.files.push({ base: parts[parts.length - 1], f: f });
    }
    const list = (d) => h('ul', null,
      Object.keys(d.dirs).sort().map((k) => h('li', { class: 'dir' }, h('span', { class: 'dir-name' }, k + '/'), list(d.dirs[k]))),
      d.files.map(({ base, f }) => h('li', null, h('button', { type: 'button', class: 'tree-file', dataset: { file: f.name }, title: f.name, onclick: () => pick(f.name) },
        h('span', { class: 'name' }, base),
        counts[f.name] ? h('span', { class: 'ccount', title: 'comments' }, String(counts[f.name])) : null,
        h('span', { class: 'adds' }, '+' + f.add), h('span', { class: 'dels' }, '\u2212' + f.del)))));
    return h('nav', { class: 'review-tree', id: 'review-tree', 'aria-label': 'changed files' },
      h('div', { class: 'small muted' }, files.length + ' file' + (files.length === 1 ? '' : 's') + ' changed'), list(root));
  }

  // fileBlock is one file's header (name, status, counts) and its lines.
  function fileBlock(f, mode, onLine) {
    return h('section', { class: 'review-file', dataset: { file: f.name } },
      h('div', { class: 'review-file-head' }, h('span', { class: 'mono' }, f.name),
        f.status ? h('span', { class: 'badge' }, f.status) : null,
        h('span', { class: 'adds' }, '+' + f.add), h('span', { class: 'dels' }, '\u2212' + f.del)),
      f.hunks.length ? (mode === 'split' ? split(f, onLine) : unified(f, onLine)) : h('p', { class: 'muted small' }, 'No lines to show.'));
  }

  return { parse, tree, fileBlock };
};
