// The project's commands on the dashboard: what .sudocode/agent.json runs
// (copy and setup at task start, merge.check before a merge, cleanup at a
// task's end), whether the user trusted that exact file, and a button that
// trusts it as `sudocode trust` does, or takes the trust back. The page
// sends the digest of the file it showed: a file that changed since is
// refused, never trusted unseen. app.js passes its helpers in.
window.SudocodeTrust = function (ui) {
  'use strict';
  const { h, api, toast } = ui;

  // trustPanel is the panel of the project's commands; null when the file
  // has none (or cannot be read: the task actions then say why).
  async function trustPanel() {
    let pt;
    try { pt = await api('/api/trust'); } catch (err) { return null; }
    if (pt.state === 'not_needed') return null;
    const box = h('section', { id: 'project-trust' });
    fill(box, pt);
    return box;
  }

  function fill(box, pt) {
    const trusted = pt.state === 'trusted';
    box.className = 'trust ' + (trusted ? 'trusted' : 'problem');
    box.dataset.state = pt.state;
    const title = trusted ? 'Project commands: trusted'
      : pt.state === 'changed' ? 'Project commands changed since you trusted them: not run' : 'Project commands not trusted: not run';
    const why = trusted ? 'They run in the sandbox, in the task\u2019s worktree. A change to the file must be trusted again.'
      : 'They come from the repository (a pull or an agent can change them). Read them; trust them only if you would run them yourself.';
    async function act(path, body, done) {
      try {
        fill(box, await api(path, 'POST', body));
        toast(done);
      } catch (err) { toast(err.message + (err.hint ? ' \u2014 ' + err.hint : ''), true); }
    }
    let action = null;
    if (ui.canWrite()) {
      action = trusted
        ? h('button', { type: 'button', class: 'button', id: 'trust-revoke', onclick: () => act('/api/trust/revoke', {}, 'Trust revoked') }, 'Revoke')
        : h('button', { type: 'button', class: 'button primary', id: 'trust-allow',
          onclick: () => act('/api/trust', { sha256: pt.sha256 }, 'Trusted: the project\u2019s commands run') }, 'Trust these commands');
    }
    box.replaceChildren(h('strong', null, title), h('p', null, why),
      h('ul', { class: 'trust-commands' }, pt.commands.map((c) => h('li', null, h('span', { class: 'muted' }, c.setting + ': '), h('code', null, c.command)))),
      h('p', { class: 'small muted mono' }, pt.file + ' \u00b7 sha256 ' + pt.sha256.slice(0, 16)),
      action ? h('div', { class: 'actions' }, action) : null);
  }

  return { trustPanel };
};
