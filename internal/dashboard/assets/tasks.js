// Tasks on the dashboard: the orchestrator's tasks with their live logs,
// diffs and reports, and the fleet's workers that run them (workers.js);
// starting an agent (on an issue), reviewing its diff and sending it
// comments and a follow-up (review.js), stopping it, merging it, and running
// what is ready. Each action is what the MCP tools and the CLI call (the
// orchestrator, and the issue-to-merge loop). app.js passes its helpers
// in.
window.SudocodeTasks = function (ui) {
  'use strict';
  const { h, link, route, api, problem, markdown, when, clock, toast } = ui;
  const trust = window.SudocodeTrust(ui);
  const workers = window.SudocodeWorkers(ui, agentName);
  const review = window.SudocodeReview(ui);
  const states = window.SudocodeTaskStates(ui);

  // The agents by the names the CLI's --agent takes (claude, not
  // CLAUDECODE): one naming for users everywhere. The API keeps the tool
  // kinds of create_task, which option values and requests carry.
  const agentNames = { CLAUDECODE: 'claude', CODEX: 'codex', GEMINI: 'gemini', OPENCODE: 'opencode', COMMAND: 'command' };
  function agentName(kind) { return agentNames[kind] || kind; }

  async function renderTasks(box) {
    const title = h('div', { class: 'title-row' }, h('h1', null, 'Tasks'),
      ui.canWrite() ? h('a', { class: 'button primary right', id: 'new-task', href: '#/new-task' }, 'Start an agent') : null);
    box.append(title);
    if (ui.canWrite()) box.append(await runReadyForm());
    let list;
    try {
      list = await api('/api/tasks');
    } catch (err) {
      box.append(problem(err, 'Tasks are'));
      return;
    }
    const commands = await trust.trustPanel(); // once tasks are known to run here
    if (commands) title.after(commands);
    // The fleet's workers, above the tasks (which only grow): what runs
    // the agents now.
    const fleet = await workers.workersSection();
    if (fleet) box.append(fleet);
    if (!list.tasks.length) {
      box.append(h('p', { class: 'muted' }, 'No tasks yet. Start an agent here or on an issue, or with the orchestrator\u2019s create_task tool.'));
      return;
    }
    const table = () => h('table', { class: 'list', id: 'task-list' },
      h('thead', null, h('tr', null, ['task', 'state', 'agent', 'branch', 'created'].map((c) => h('th', null, c)))),
      h('tbody', null, list.tasks.filter(states.shown).map((t) => h('tr', { dataset: { id: t.id } },
        h('td', null, link(route('task', t.id), t.description || t.id), h('div', { class: 'id small' }, t.id)),
        h('td', null, states.taskBadge(t)), h('td', null, agentName(t.tool)),
        h('td', { class: 'mono small' }, t.branch), h('td', { class: 'small' }, when(t.created_at))))));
    box.append(h('div', { class: 'filters', id: 'task-filters' }, states.stateFilter(list.tasks, () => document.getElementById('task-list').replaceWith(table()))), table());
  }

  function taskHeader(t) {
    return h('div', { class: 'task-head', id: 'task-head' },
      h('div', { class: 'title-row' }, h('h1', null, t.description || t.id), h('span', { id: 'task-status' }, states.taskBadge(t))),
      h('dl', { class: 'meta' },
        h('dt', null, 'id'), h('dd', { class: 'id' }, t.id),
        h('dt', null, 'agent'), h('dd', { id: 'task-agent' }, agentName(t.tool)),
        h('dt', null, 'branch'), h('dd', { class: 'mono' }, t.branch),
        h('dt', null, 'base'), h('dd', { class: 'mono' }, (t.base_sha || '').slice(0, 12)),
        t.worktree_path ? [h('dt', null, 'worktree'), h('dd', { class: 'mono small' }, t.worktree_path)] : null,
        h('dt', null, 'updated'), h('dd', null, when(t.updated_at)),
        t.issue_id ? [h('dt', null, 'issue'), h('dd', { id: 'task-issue' }, link(route('issue', t.issue_id), t.issue_id))] : null,
        t.failure ? [h('dt', null, 'error'), h('dd', { class: 'error-text' }, t.failure)] : null),
      ui.canWrite() ? h('div', { class: 'actions' },
        ['pending', 'in_progress', 'waiting'].includes(t.status) ? h('button', { type: 'button', class: 'button', id: 'stop-task', onclick: async () => {
          const sure = await confirmAction('Stop ' + t.id + '?', (t.status === 'waiting' ? 'The task ends' : 'Its agent is stopped') +
            ' and its worktree removed; the branch ' + t.branch + ' keeps the work, uncommitted files included.' +
            (t.issue_id ? ' Its issue ' + t.issue_id + ' goes back to open.' : ''), 'Stop');
          if (!sure) return;
          try {
            await api('/api/tasks/' + encodeURIComponent(t.id) + '/stop', 'POST');
            toast('Stopped ' + t.id + '; its branch ' + t.branch + ' keeps the work');
          } catch (err) { toast(err.message, true); }
        } }, 'Stop') : null,
        mergeable(t) ? h('button', { type: 'button', class: 'button primary', id: 'merge-task', onclick: () => merge(t) }, 'Merge') : null,
        mergeRefusals[t.id] ? h('p', { class: 'error-text', id: 'merge-error' }, mergeRefusals[t.id]) : null) : null);
  }

  // A finished task whose worktree still exists can be merged.
  function mergeable(t) { return ['completed', 'waiting'].includes(t.status) && !!t.worktree_path; }

  // mergeRefusals keeps why a task's merge was refused (a conflict, a
  // failing check), shown in its header until a merge is tried again,
  // however often the header is redrawn meanwhile.
  const mergeRefusals = {};

  // confirmAction asks before an action that cannot be undone from the
  // page; it resolves true when the user confirms.
  // extra is a node shown under the text (a choice the action takes).
  function confirmAction(title, text, label, extra) {
    return new Promise((resolve) => {
      const dlg = h('dialog', { class: 'dialog', id: 'confirm-dialog', 'aria-label': title });
      let yes = false;
      dlg.append(h('form', { method: 'dialog', onsubmit: (e) => { e.preventDefault(); yes = true; dlg.close(); } },
        h('h2', null, title), h('p', null, text), extra || null,
        h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'confirm-ok' }, label),
          h('button', { type: 'button', class: 'button', id: 'confirm-cancel', onclick: () => dlg.close() }, 'Cancel'))));
      dlg.addEventListener('close', () => { dlg.remove(); resolve(yes); });
      document.body.append(dlg);
      dlg.showModal();
      document.getElementById('confirm-ok').focus();
    });
  }

  async function merge(t) {
    const strategy = states.strategyPicker();
    let what = 'its changes';
    let uncommitted = '';
    try {
      const d = await api('/api/tasks/' + encodeURIComponent(t.id) + '/diff');
      what = d.files.length + ' file' + (d.files.length === 1 ? '' : 's') + ' (' + d.files.join(', ') + ')';
      if (d.uncommitted.length) uncommitted = ' Not committed yet, so the merge commits them: ' + d.uncommitted.join(', ') + '.';
    } catch (err) { /* the merge itself says what is wrong */ }
    const sure = await confirmAction('Merge ' + t.id + '?', 'Merge ' + what + ' from ' + t.branch + ' into the checkout\u2019s branch' +
      (t.issue_id ? ', and close ' + t.issue_id : '') + '.' + uncommitted + ' The Diff tab shows every line.', 'Merge', strategy);
    if (!sure) return;
    delete mergeRefusals[t.id];
    try {
      const r = await api('/api/tasks/' + encodeURIComponent(t.id) + '/merge', 'POST', { strategy: strategy.querySelector('select').value });
      toast('Merged into ' + r.base + ' as ' + String(r.commit).slice(0, 12) + (r.issue_id ? '; ' + r.issue_id + ' is closed' : '') +
        (r.warning ? ' — ' + r.warning : ''), !!r.warning);
    } catch (err) {
      mergeRefusals[t.id] = err.message + (err.hint ? ' — ' + err.hint : '');
    }
    const old = document.getElementById('task-head');
    if (old) old.replaceWith(taskHeader(await api('/api/tasks/' + encodeURIComponent(t.id))));
  }

  // runReadyForm works the ready issues with the chosen agent, at most
  // limit of them, each merged as it finishes (run_ready). The run's state
  // lives outside the form: the list is redrawn as its tasks change.
  let run = null; // {busy} | {items} | {error}
  function runResult() {
    let body = null;
    if (run && run.busy) body = h('span', { class: 'muted' }, 'Working the ready issues\u2026');
    else if (run && run.error) body = h('span', { class: 'error-text' }, run.error);
    else if (run && !run.items.length) body = h('span', { class: 'muted' }, 'No issue is ready.');
    else if (run) {
      body = h('ul', null, run.items.map((it) => h('li', { dataset: { issue: it.issue_id, outcome: it.outcome } },
        link(route('issue', it.issue_id), it.issue_id), ': ', it.outcome.replace('_', ' '), it.error ? ' \u2014 ' + it.error : '')));
    }
    return h('div', { id: 'run-result', class: 'small', role: 'status' }, body);
  }
  function showRun(state) {
    run = state;
    const old = document.getElementById('run-result');
    if (old) old.replaceWith(runResult());
    const go = document.getElementById('run-ready');
    if (go) go.disabled = !!run.busy;
  }
  async function runReadyForm() {
    let agents = [];
    try { agents = (await api('/api/agents')).agents.filter((a) => a.available); } catch (err) { return problem(err, 'Agents are'); }
    const tool = h('select', { id: 'run-tool', 'aria-label': 'agent' }, agents.map((a) => h('option', { value: a.kind }, agentName(a.kind))));
    const limit = h('input', { id: 'run-limit', type: 'number', min: 1, value: 1, 'aria-label': 'at most this many issues', class: 'narrow' });
    const parallel = h('input', { id: 'run-parallel', type: 'number', min: 1, value: 1, 'aria-label': 'at most this many agents at a time', class: 'narrow' });
    const cfg = h('input', { id: 'run-config', type: 'text', class: 'mono grow', placeholder: 'options (JSON), e.g. {"model": "\u2026"}', 'aria-label': 'agent options' });
    const go = h('button', { type: 'submit', class: 'button', id: 'run-ready', disabled: !agents.length || !!(run && run.busy) }, 'Run ready');
    return h('form', { class: 'actions', id: 'run-form', onsubmit: async (e) => {
      e.preventDefault();
      let config;
      if (cfg.value.trim()) {
        try { config = JSON.parse(cfg.value); } catch (err) { toast('Options must be a JSON object: ' + err.message, true); return; }
      }
      showRun({ busy: true });
      try {
        showRun({ items: (await api('/api/run-ready', 'POST', { tool: tool.value, config: config, limit: Number(limit.value) || 1, parallel: Number(parallel.value) || 1 })).items });
      } catch (err) {
        showRun({ error: err.message + (err.hint ? ' \u2014 ' + err.hint : '') });
      }
    } }, h('span', null, 'Run ready issues with'), tool, h('label', null, 'at most ', limit), h('label', null, 'at a time ', parallel), cfg, go, runResult());
  }

  function money(v) { return v == null ? '\u2014' : '$' + Number(v).toFixed(4); }

  // report shows what the task was asked, what the agent answered, and
  // what it cost.
  async function report(id, box) {
    try {
      const r = await api('/api/tasks/' + encodeURIComponent(id) + '/report');
      const t = await api('/api/tasks/' + encodeURIComponent(id));
      const u = r.usage || {};
      const tok = (x) => x && x.tokens ? x.tokens.input + ' in / ' + x.tokens.output + ' out' : 'tokens unknown';
      box.replaceChildren(
        h('h3', null, 'Instructions'), t.instructions ? h('pre', { class: 'instructions', id: 'task-instructions' }, t.instructions) : h('p', { class: 'muted' }, 'None.'),
        h('h3', null, 'Final answer'), r.final_answer ? markdown(r.final_answer, 'final-answer') : h('p', { class: 'muted', id: 'no-answer' }, 'None yet.'),
        h('h3', null, 'Usage'),
        h('dl', { class: 'meta', id: 'task-usage' },
          h('dt', null, 'outcome'), h('dd', null, r.outcome || 'running'),
          h('dt', null, 'duration'), h('dd', null, (r.duration_ms / 1000).toFixed(1) + ' s'),
          h('dt', null, 'last run'), h('dd', null, tok(u.run) + ' \u00b7 ' + money(u.run && u.run.cost_usd)),
          h('dt', null, 'whole task'), h('dd', null, tok(u.task) + ' \u00b7 ' + money(u.task && u.task.cost_usd)),
          h('dt', null, 'files'), h('dd', { class: 'mono small' }, (r.files_changed || []).join(', ') || '\u2014')));
    } catch (err) {
      box.replaceChildren(problem(err));
    }
  }

  function logLine(e) {
    const ev = e.event || {};
    let text = ev.text || '';
    if (ev.kind === 'tool_call' && ev.tool) text = ev.tool + (text ? ': ' + text : '');
    if (ev.kind === 'file_change' && ev.files && ev.files.length) text = ev.files.join(', '); // as the CLI prints it
    if (ev.kind === 'completion') text = (ev.success ? '\u2713 ' : '\u2717 ') + text;
    if (ev.kind === 'usage' && ev.tokens) text = 'tokens in ' + ev.tokens.input + ' / out ' + ev.tokens.output + (ev.cost_usd != null ? ' \u00b7 ' + money(ev.cost_usd) : '');
    return h('div', { class: 'log-line k-' + String(ev.kind || 'log').replace(/[^\w-]/g, ''), dataset: { seq: e.seq } },
      h('span', { class: 'seq' }, String(e.seq)),
      h('span', { class: 'time' }, clock(ev.time)),
      h('span', { class: 'kind' }, ev.kind || 'log'),
      h('span', { class: 'text' }, text));
  }

  // diffView shows a unified diff (a ruleset's versions compared; a
  // task's diff is the review's, review.js).
  function diffView(text) {
    const pre = h('pre', { class: 'diff' });
    let inHunk = false;
    for (const line of text.replace(/\n$/, '').split('\n')) {
      let cls = '';
      if (line.startsWith('diff ')) inHunk = false;
      if (!inHunk && !line.startsWith('@@')) {
        cls = 'file'; // a file's header: diff, index, mode, rename and ---/+++ lines
      } else if (line.startsWith('@@')) {
        inHunk = true;
        cls = 'hunk';
      } else if (line.startsWith('-')) {
        cls = 'del';
      } else if (line.startsWith('\\')) {
        cls = 'note'; // \ No newline at end of file
      } else if (line.startsWith('+')) {
        cls = 'add';
      }
      pre.append(h('span', { class: 'dl ' + cls }, line + '\n'));
    }
    return pre;
  }

  async function renderTask(box, args, isRefresh) {
    const id = args[0] || '';
    if (isRefresh && document.getElementById('task-log')) return false; // the stream keeps it live
    const t = await api('/api/tasks/' + encodeURIComponent(id));
    const head = h('div', null, taskHeader(t));
    const logBox = h('div', { class: 'log', id: 'task-log', role: 'log' });
    const diffBox = h('div', { class: 'diff-box', id: 'task-diff', hidden: true });
    const follow = h('label', { class: 'follow' }, h('input', { type: 'checkbox', checked: true, id: 'follow' }), ' follow');
    const tabs = h('div', { class: 'tabs' },
      h('button', { type: 'button', class: 'on', id: 'tab-log', onclick: () => pick('log') }, 'Log'),
      h('button', { type: 'button', id: 'tab-diff', onclick: () => pick('diff') }, 'Diff'),
      h('button', { type: 'button', id: 'tab-report', onclick: () => pick('report') }, 'Report'),
      follow);
    const reportBox = h('div', { class: 'report', id: 'task-report', hidden: true });
    const rv = review.session(t);
    box.append(h('p', { class: 'crumbs' }, link('/tasks', '\u2190 Tasks')), head, tabs, logBox, diffBox, reportBox, rv.box);

    async function pick(which) {
      for (const k of ['log', 'diff', 'report']) document.getElementById('tab-' + k).classList.toggle('on', which === k);
      logBox.hidden = which !== 'log';
      diffBox.hidden = which !== 'diff';
      reportBox.hidden = which !== 'report';
      if (which === 'report') { report(id, reportBox); return; }
      if (which !== 'diff') return;
      rv.showDiff(diffBox);
    }

    let empty = h('p', { class: 'muted empty-log' }, 'No log yet.');
    logBox.append(empty);
    const es = new EventSource('/api/tasks/' + encodeURIComponent(id) + '/stream');
    ui.onCleanup(() => es.close());
    es.addEventListener('log', (m) => {
      const e = JSON.parse(m.data);
      if (empty) { empty.remove(); empty = null; }
      if (logBox.querySelector('[data-seq="' + Number(e.seq) + '"]')) return;
      const atEnd = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
      logBox.append(logLine(e));
      if (document.getElementById('follow') && document.getElementById('follow').checked && atEnd) {
        window.scrollTo(0, document.body.scrollHeight);
      }
    });
    es.addEventListener('task', (m) => {
      const nt = JSON.parse(m.data);
      const old = document.getElementById('task-head');
      if (old) old.replaceWith(taskHeader(nt));
      const fu = document.getElementById('review-form');
      if (fu && !review.followable(nt)) fu.remove(); // merged or ended as the page watched
      if (!reportBox.hidden) report(id, reportBox);
      rv.taskChanged(nt, diffBox);
    });
  }


  // ---- starting an agent ------------------------------------------------

  // issueOf is the issue a task works on, as the orchestrator records it.
  function issueOf(t) { return t.issue_id || ''; }

  // issueExtras are an issue page's agent actions and its tasks.
  function issueExtras(it) {
    if (it.status === 'closed') return null; // reopen it first: an agent's merge would close it again
    return h('a', { class: 'button', id: 'start-agent', href: '#' + route('new-task', it.id) }, 'Start an agent\u2026');
  }

  async function renderTaskForm(box, args) {
    const issueID = args[0] || '';
    let agents;
    try {
      agents = (await api('/api/agents')).agents;
    } catch (err) {
      box.append(h('h1', null, 'Start an agent'), problem(err, 'Tasks are'));
      return;
    }
    const it = issueID ? await api('/api/issues/' + encodeURIComponent(issueID)) : null;
    if (it && it.status === 'closed') {
      // As on the issue's page, no agent on a closed issue: its merge
      // would close it again, and the server refuses the start.
      box.append(h('p', { class: 'crumbs' }, link(route('issue', it.id), '\u2190 ' + it.id)),
        h('h1', null, 'Start an agent on ' + it.id),
        h('p', { class: 'hint', id: 'task-issue-closed' }, it.id + ' is closed: no agent can be started on it. To start one, reopen it first: on ',
          link(route('issue', it.id), 'its page'), ', set its status back to open.'));
      return;
    }
    const ready = agents.filter((a) => a.available);
    const missing = agents.filter((a) => !a.available);
    const tool = h('select', { id: 'task-tool' }, ready.map((a) => h('option', { value: a.kind }, agentName(a.kind))));
    // On an issue the prompt is assembled from the tracker when the task
    // starts (the issue, its specs, blockers and rulesets); what is typed
    // here is added to it.
    const desc = h('input', { id: 'task-description', type: 'text', required: !it, autocomplete: 'off', placeholder: it ? it.id + ': ' + it.title : '' });
    const instr = h('textarea', { id: 'task-instructions-input', rows: it ? 4 : 8, placeholder: it ? 'Further instructions, added to the prompt drawn from ' + it.id : '' });
    const cfg = h('textarea', { id: 'task-config', rows: 3, placeholder: '{"model": "\u2026"}  or for command: {"command": ["make", "test"]}', class: 'mono' });
    const form = h('form', { class: 'form wide', id: 'task-form', onsubmit: async (e) => {
      e.preventDefault();
      let config;
      if (cfg.value.trim()) {
        try { config = JSON.parse(cfg.value); } catch (err) { toast('Options must be a JSON object: ' + err.message, true); return; }
      }
      try {
        const t = await api('/api/tasks', 'POST', { tool: tool.value, description: desc.value.trim(), instructions: instr.value, config: config, issue_id: issueID || undefined });
        toast('Started ' + t.id + ' on ' + t.branch);
        location.hash = '#' + route('task', t.id);
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    } },
    h('div', { class: 'row' }, h('label', null, 'Agent', tool), h('label', { class: 'grow' }, 'Description', desc)),
    h('label', null, it ? 'Further instructions (the prompt is drawn from the issue, its specs and rulesets)' : 'Instructions', instr),
    h('label', null, 'Options (JSON, passed to the agent as its config)', cfg),
    missing.length ? h('div', { class: 'hint', id: 'agents-missing' }, h('strong', null, 'Not available here:'),
      h('ul', null, missing.map((a) => h('li', null, h('span', { class: 'mono' }, agentName(a.kind)), ': ', h('code', null, a.problem))))) : null,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'button primary', id: 'task-start', disabled: !ready.length }, 'Start'),
      h('a', { class: 'button', href: it ? '#' + route('issue', it.id) : '#/tasks' }, 'Cancel')));
    box.append(h('p', { class: 'crumbs' }, it ? link(route('issue', it.id), '\u2190 ' + it.id) : link('/tasks', '\u2190 Tasks')),
      h('h1', null, it ? 'Start an agent on ' + it.id : 'Start an agent'), (await trust.trustPanel()) || '', form);
  }

  return { renderTasks, renderTask, renderTaskForm, diffView, issueExtras, issueOf, taskBadge: states.taskBadge };
};
