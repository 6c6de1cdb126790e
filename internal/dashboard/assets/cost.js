// What agent tasks cost, as the board's cards and an issue's page show it:
// the usage the API gives (every task started on the issue, failed and
// cancelled attempts included) in a few words. A figure no task reported
// is said to be unknown, never shown as $0. app.js passes its helpers in.
window.SudocodeCost = function (ui) {
  'use strict';
  const { h } = ui;

  // money is dollars to the cent, or to a hundredth of a cent below one
  // (an agent's run often costs less than a cent).
  const money = (usd) => '$' + (usd >= 0.01 || usd === 0 ? usd.toFixed(2) : usd.toFixed(4));
  // count is a token count a glance takes in: 950, 12k, 3.4M.
  function count(n) {
    if (n < 1000) return String(n);
    if (n < 1e6) return (n < 1e4 ? (n / 1e3).toFixed(1).replace(/\.0$/, '') : Math.round(n / 1e3)) + 'k';
    return (n / 1e6).toFixed(1).replace(/\.0$/, '') + 'M';
  }
  const total = (t) => t.input + t.output + t.cache_read + t.cache_write;
  const plural = (n, one, many) => n + ' ' + (n === 1 ? one : many);

  // costWords is the cost part: unknown when no task reported one, and
  // marked as leaving tasks out when some did not.
  function costWords(u) {
    if (u.cost_usd == null || !u.priced) return 'cost unknown';
    return money(u.cost_usd) + (u.priced < u.tasks ? '+' : '');
  }

  // sentence is the usage in full, for a badge's title and the page.
  function sentence(u) {
    const parts = [plural(u.tasks, 'task', 'tasks') + ', every attempt'];
    if (u.tokens) parts.push((u.tokens.input + u.tokens.cache_read + u.tokens.cache_write).toLocaleString() + ' tokens in, ' + u.tokens.output.toLocaleString() + ' out');
    if (u.cost_usd == null || !u.priced) parts.push('cost unknown');
    else parts.push('$' + u.cost_usd.toFixed(4) + (u.priced < u.tasks ? ' (' + u.priced + ' of them reported a cost)' : ''));
    return parts.join(', ');
  }

  // badge is a card's "$0.42 · 12k tokens".
  function badge(u) {
    if (!u) return null;
    const words = [costWords(u)];
    if (u.tokens) words.push(count(total(u.tokens)) + ' tokens');
    return h('span', { class: 'badge cost', title: 'agent tasks: ' + sentence(u) }, words.join(' \u00b7 '));
  }

  // known is whether any task reported a figure: a card carries a badge
  // only then (a board of command agents would read "cost unknown" on
  // every card); the page says it in any case.
  const known = (u) => !!u && (u.tokens != null || (u.cost_usd != null && u.priced > 0));

  // line is the issue page's figure: the badge's words, then the sentence.
  function line(u) {
    if (!u) return null;
    return h('span', { id: 'issue-usage' }, badge(u), ' ', h('span', { class: 'muted small' }, sentence(u)));
  }

  return { badge, line, known };
};
