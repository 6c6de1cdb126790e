// Reviewing a task like a pull request: its diff file by file
// (review_diff.js), comments placed on lines of it and kept by the server,
// which moves each with its code when the agent changes the file and marks
// it stale when the code is gone, and one box that sends the open
// comments and a follow-up together as one update of the task.
window.SudocodeReview = function (ui) {
  'use strict';
  const { h, api, problem, toast } = ui;
  const rd = window.SudocodeReviewDiff(ui);
  const modeKey = 'sudocode.review.mode';

  // session is the review of task t: box is the send box (null when the
  // page cannot write or the worktree is gone); showDiff draws the diff
  // with its comments into a box.
  function session(t) {
    const id = t.id;
    const path = '/api/tasks/' + encodeURIComponent(id);
    const writable = ui.canWrite() && followable(t);
    let comments = [];
    let shown = null; // {box, diff}: the diff drawn last, redrawn as comments change
    let lastStatus = t.status;

    const area = h('textarea', { id: 'follow-up', rows: 4, placeholder: 'What should the agent do next? Sent with the open comments.', 'aria-label': 'follow-up instructions' });
    const pending = h('div', { id: 'review-open' });
    const send = h('button', { type: 'submit', class: 'button primary', id: 'send-review' }, 'Send');
    const box = writable ? h('form', { class: 'form wide review-box', id: 'review-form', onsubmit: async (e) => {
      e.preventDefault();
      send.disabled = true;
      try {
        const r = await api(path + '/review', 'POST', { instructions: area.value });
        area.value = '';
        toast(r.comments.length ? 'Sent ' + r.comments.length + ' comment' + (r.comments.length > 1 ? 's' : '') + ' and the follow-up to ' + id : 'Sent to ' + id);
        await reload();
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
      send.disabled = false;
    } }, h('label', { for: 'follow-up' }, 'Review and follow-up'), pending, area,
    h('div', { class: 'actions' }, send)) : null;

    function showPending() {
      const open = comments.filter((c) => c.state === 'open');
      send.textContent = open.length ? 'Send ' + open.length + ' comment' + (open.length > 1 ? 's' : '') + ' and the follow-up' : 'Send the follow-up';
      pending.replaceChildren(open.length ? h('ul', { class: 'small' }, open.map((c) => h('li', null,
        h('span', { class: 'mono' }, c.file + ':' + c.line), c.stale ? ' (stale)' : '', ' ', c.body))) : '');
    }

    async function reload() {
      try { comments = (await api(path + '/comments')).comments; } catch (err) { comments = []; }
      showPending();
      if (shown) draw();
    }

    function mode() { return localStorage.getItem(modeKey) === 'split' ? 'split' : 'unified'; }

    // commentView is one comment: where it is, whether it moved, went
    // stale or was sent, and its text.
    function commentView(c) {
      const orig = c.anchor && c.anchor.original_location ? c.anchor.original_location.line_number : c.line;
      return h('div', { class: 'code-comment' + (c.stale ? ' stale' : '') + (c.state === 'sent' ? ' sent' : ''), dataset: { id: c.id, at: c.line, state: c.state } },
        h('div', { class: 'cc-head small' }, h('span', { class: 'mono' }, c.file + ':' + c.line),
          c.stale ? h('span', { class: 'badge st-stale' }, 'stale: the code is gone') : null,
          !c.stale && orig !== c.line ? h('span', { class: 'badge st-moved' }, 'moved from line ' + orig) : null,
          c.state === 'sent' ? h('span', { class: 'badge st-sent' }, 'sent') : h('span', { class: 'badge' }, 'open'),
          writable && c.state === 'open' ? h('button', { type: 'button', class: 'icon', 'aria-label': 'delete comment', onclick: async () => {
            try { await api(path + '/comments/' + encodeURIComponent(c.id), 'DELETE'); await reload(); } catch (err) { toast(err.message, true); }
          } }, '\u00d7') : null),
        c.stale ? h('pre', { class: 'cc-code' }, c.code) : null,
        h('div', { class: 'cc-body' }, c.body));
    }

    // comment opens a box under a line for a comment on it.
    function comment(at, row) {
      const old = document.getElementById('diff-comment');
      if (old) old.remove();
      const input = h('input', { id: 'diff-comment-text', type: 'text', placeholder: 'comment on ' + at.file + ':' + at.line, autocomplete: 'off', 'aria-label': 'comment' });
      const form = h('form', { class: 'diff-comment', id: 'diff-comment', onsubmit: async (e) => {
        e.preventDefault();
        if (!input.value.trim()) return;
        try {
          await api(path + '/comments', 'POST', { file: at.file, line: at.line, body: input.value.trim() });
          form.remove();
          await reload();
        } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
      } }, input, h('button', { type: 'submit', class: 'button small', id: 'diff-comment-add' }, 'Comment'));
      form.addEventListener('keydown', (e) => { if (e.key === 'Escape') { form.remove(); row.focus(); } });
      placeAfter(row, form);
      input.focus();
    }

    // placeAfter puts el after row and the comments already under it.
    function placeAfter(row, el) {
      let at = row;
      while (at.nextElementSibling && at.nextElementSibling.classList.contains('code-comment')) at = at.nextElementSibling;
      at.after(el);
    }

    // draw lays out the tree and the files in the mode chosen, with every
    // comment under its line, or at the end of its file when its line is
    // not in the diff (stale, or moved out of the changed lines).
    function draw() {
      const { box: target, files } = shown;
      const m = mode();
      const blocks = h('div', { class: 'review-files', id: 'review-files' });
      const counts = {};
      for (const c of comments) counts[c.file] = (counts[c.file] || 0) + 1;
      for (const f of files) {
        const block = rd.fileBlock(f, m, writable ? comment : null);
        for (const c of comments.filter((x) => x.file === f.name)) {
          const row = c.stale ? null : block.querySelector('.dl[data-line="' + Number(c.line) + '"], .srow[data-line="' + Number(c.line) + '"]');
          if (row) placeAfter(row, commentView(c));
          else block.append(commentView(c));
        }
        blocks.append(block);
      }
      // Comments on a file the diff no longer shows (the agent undid its
      // change, or removed the file) stay in sight, under its name.
      const names = new Set(files.map((f) => f.name));
      for (const name of [...new Set(comments.map((c) => c.file))].filter((n) => !names.has(n))) {
        blocks.append(h('section', { class: 'review-file', dataset: { file: name } },
          h('div', { class: 'review-file-head' }, h('span', { class: 'mono' }, name), h('span', { class: 'muted small' }, 'not in the diff')),
          comments.filter((c) => c.file === name).map(commentView)));
      }
      const toggle = h('div', { class: 'seg', role: 'group', 'aria-label': 'diff layout' }, ['unified', 'split'].map((k) =>
        h('button', { type: 'button', id: 'view-' + k, class: m === k ? 'on' : '', 'aria-pressed': String(m === k), onclick: () => {
          localStorage.setItem(modeKey, k);
          draw();
        } }, k === 'unified' ? 'Unified' : 'Side by side')));
      const pick = (name) => {
        const b = blocks.querySelector('.review-file[data-file="' + CSS.escape(name) + '"]');
        if (b) b.scrollIntoView({ block: 'start' });
      };
      const old = target.querySelector('.review-layout');
      const layout = h('div', { class: 'review-layout' }, rd.tree(files, counts, pick), h('div', { class: 'review-main' }, toggle, blocks));
      if (old) old.replaceWith(layout); else target.append(layout);
    }

    async function showDiff(target) {
      target.replaceChildren(h('p', { class: 'muted' }, 'Loading the diff\u2026'));
      shown = null;
      try {
        const d = await api(path + '/diff');
        const parts = [h('p', { class: 'muted', id: 'diff-what' }, 'Everything a merge takes: ' + (d.base_sha || '').slice(0, 12) + ' \u2192 ' + d.branch +
          (d.source === 'worktree' ? ' and its worktree\u2019s files as they are' : ''))];
        if (!d.source) parts.push(h('p', { class: 'muted' }, 'The task\u2019s worktree and branch are gone (merged or ended): there is nothing left to merge.'));
        else if (!d.files.length) parts.push(h('p', { class: 'muted' }, 'No changes yet: a merge would take nothing.'));
        else if (d.uncommitted.length) {
          parts.push(h('p', { class: 'hint', id: 'diff-uncommitted' }, 'Not committed yet (the merge commits them as they are): ' + d.uncommitted.join(', ')));
        }
        if (d.truncated) parts.push(h('p', { class: 'hint' }, 'The diff was cut at 2 MiB.'));
        target.replaceChildren.apply(target, parts);
        if (d.files.length) {
          comments = (await api(path + '/comments')).comments; // moved to where their code is now
          showPending();
          shown = { box: target, files: rd.parse(d.text) };
          draw();
        }
      } catch (err) {
        target.replaceChildren(problem(err));
      }
    }

    // taskChanged redraws a shown diff when a run of the agent ends: its
    // changes moved the comments.
    function taskChanged(nt, target) {
      const was = lastStatus;
      lastStatus = nt.status;
      if (was !== nt.status && was === 'in_progress' && shown && !target.hidden) showDiff(target);
    }

    reload();
    return { box, showDiff, taskChanged };
  }

  // followable is whether new instructions can reach the task's agent:
  // its worktree is there and its branch not merged yet.
  function followable(t) { return !!t.worktree_path && t.state !== 'merged'; }

  return { session, followable };
};
