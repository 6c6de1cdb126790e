// The fleet's workers on the tasks page, when serve runs its tasks
// through a fleet (serve --fleet): one row per worker connected now, with
// its host, agent CLIs, labels, runs against its slots, the tasks it runs
// and its last heartbeat, as `sudocode workers` lists them. app.js passes
// its helpers in; tasks.js places the section.
window.SudocodeWorkers = function (ui, agentName) {
  'use strict';
  const { h, link, route, api, badge, problem } = ui;

  // pollEvery is how often the section reads the workers again while it
  // is shown. The page is not told of a worker's changes: a worker's
  // presence is a key of the fleet's store that the worker itself
  // rewrites every heartbeat (and when its runs change), and the
  // orchestrator only reads it; an event per heartbeat would come as
  // often as this poll does. A task's own changes redraw the whole view
  // at once, over the 'tasks' events.
  const pollEvery = 4000;

  // read is /api/workers, or the error reading it.
  async function read() {
    try { return await api('/api/workers'); } catch (err) { return { fleet: true, error: err }; }
  }

  // ago says how long before now t was, in the largest whole unit.
  function ago(now, t) {
    const s = Math.max(0, Math.round((new Date(now) - new Date(t)) / 1000));
    if (isNaN(s)) return '';
    if (s < 60) return s + ' s ago';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    return Math.floor(s / 3600) + ' h ago';
  }

  function runCell(r) {
    const what = r.task + (r.run > 1 ? ' (run ' + r.run + ')' : '');
    if (!r.known) return h('li', { class: 'mono small', title: 'a task of another repository' }, what);
    return h('li', { dataset: { task: r.task } }, link(route('task', r.task), r.description || r.task),
      ' ', h('span', { class: 'id small' }, what));
  }

  // section is the Workers section for a read of /api/workers; null
  // without a fleet.
  function section(list) {
    if (!list.fleet) return null;
    const box = h('section', { id: 'workers', class: 'workers', 'aria-label': 'workers' }, h('h2', null, 'Workers'));
    if (list.error) {
      box.append(problem(list.error, 'Workers are'));
      return box;
    }
    if (!list.workers.length) {
      box.append(h('p', { class: 'muted', id: 'no-workers' },
        'No workers connected: the fleet\u2019s runs wait for one. Add one with sudocode workers add NAME.'));
      return box;
    }
    box.append(h('table', { class: 'list', id: 'worker-list' },
      h('thead', null, h('tr', null, ['worker', 'host', 'agents', 'labels', 'running', 'tasks', 'last heartbeat'].map((c) => h('th', null, c)))),
      h('tbody', null, list.workers.map((w) => h('tr', { dataset: { id: w.id } },
        h('td', { class: 'mono' }, w.id),
        h('td', { class: 'mono small' }, w.host),
        h('td', null, w.agents.map((a) => agentName(a.toUpperCase())).join(', ')),
        h('td', null, w.labels.map((l) => [badge(l, 'tag'), ' '])),
        h('td', { class: 'running' }, w.running + ' / ' + w.slots),
        h('td', null, w.runs.length ? h('ul', { class: 'runs' }, w.runs.map(runCell)) : h('span', { class: 'muted' }, 'idle')),
        h('td', { class: 'small heartbeat', title: String(w.heartbeat) }, ago(list.now, w.heartbeat)))))));
    return box;
  }

  // poll keeps the section shown up to date until the view is left: one
  // read at a time, the next one pollEvery after the last answered.
  let polling = null;
  function poll() {
    if (polling) return; // a redraw of the view keeps the running poll
    const mine = {};
    polling = mine;
    ui.onCleanup(() => { clearTimeout(mine.timer); if (polling === mine) polling = null; });
    const tick = async () => {
      const list = await read();
      if (polling !== mine) return; // the view was left meanwhile
      const old = document.getElementById('workers');
      const now = section(list);
      if (old && now) {
        // A link of the section that had the focus keeps it.
        const focused = old.contains(document.activeElement) ? document.activeElement.getAttribute('href') : null;
        old.replaceWith(now);
        const again = focused ? now.querySelector('a[href="' + CSS.escape(focused) + '"]') : null;
        if (again) again.focus({ preventScroll: true });
      }
      mine.timer = setTimeout(tick, pollEvery);
    };
    mine.timer = setTimeout(tick, pollEvery);
  }

  // workersSection is the section as the view first draws it, then kept
  // up to date; null (and no polling) without a fleet.
  async function workersSection() {
    const list = await read();
    const box = section(list);
    if (box) poll();
    return box;
  }

  return { workersSection };
};
