// Task states as people read them, on the Tasks list, a task's page and
// the board's cards, and the list's filter by them. The API keeps the
// orchestrator's statuses; the server adds the state (merged, conflicted
// and ended told apart from completed) and its words (state_text), so
// every surface names a state the same way.
window.SudocodeTaskStates = function (ui) {
  'use strict';
  const { h, badge } = ui;

  // The words in the order a reviewer works through them: what runs,
  // what waits for them, then what is over.
  const ORDER = ['starting', 'running', 'waiting for review', 'conflicted', 'failed', 'merged', 'ended', 'stopped'];

  function words(t) { return t.state_text || String(t.state || t.status).replace(/_/g, ' '); }

  // taskBadge is a task's state in words; its status stays on hover (a
  // task waiting for review is waiting or completed by whether its agent
  // keeps a session).
  function taskBadge(t) {
    const w = words(t);
    const b = badge(w, 'task-state ts-' + w.replace(/[^\w]+/g, '-'), 'status: ' + String(t.status).replace(/_/g, ' '));
    b.dataset.state = t.state || t.status;
    return b;
  }

  // filter is the state the Tasks list shows ('' for all); it outlives
  // the list's redraws as tasks change.
  let filter = '';

  // stateFilter is a select of the states the tasks are in, each with its
  // count; choosing one calls onPick (the list then redraws).
  function stateFilter(tasks, onPick) {
    const counts = {};
    for (const t of tasks) counts[words(t)] = (counts[words(t)] || 0) + 1;
    const known = ORDER.concat(Object.keys(counts).filter((w) => !ORDER.includes(w)));
    if (filter && !counts[filter]) counts[filter] = 0; // the choice stays while no task is in it
    return h('label', { class: 'small' }, 'state ',
      h('select', { id: 'task-state-filter', 'aria-label': 'show tasks in this state', onchange: (e) => { filter = e.target.value; onPick(); } },
        h('option', { value: '' }, 'all (' + tasks.length + ')'),
        known.filter((w) => w in counts).map((w) => h('option', { value: w, selected: w === filter }, w + ' (' + counts[w] + ')'))));
  }

  function shown(t) { return !filter || words(t) === filter; }

  // strategyPicker chooses how a merge lands on the base, as merge_task's
  // strategy: left at the project's choice unless picked.
  function strategyPicker() {
    return h('label', { class: 'strategy' }, 'Strategy ',
      h('select', { id: 'merge-strategy', 'aria-label': 'merge strategy' },
        h('option', { value: '' }, 'the project\u2019s (merge.strategy, else squash)'),
        h('option', { value: 'squash' }, 'squash: one new commit on the base'),
        h('option', { value: 'ff' }, 'ff: move the base to the branch (fast-forward only)'),
        h('option', { value: 'merge' }, 'merge: a merge commit')));
  }

  return { taskBadge, stateFilter, shown, strategyPicker, words };
};
