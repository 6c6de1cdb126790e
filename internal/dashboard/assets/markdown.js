// A small, safe markdown renderer: it builds DOM nodes and sets text with
// createTextNode/textContent only, so nothing in the source is ever parsed
// as HTML (raw HTML shows as text). Links keep only http(s) and mailto
// targets; images are shown as links (the page loads nothing from
// elsewhere). Supported: ATX headings, paragraphs, fenced and indented-less
// code, block quotes, ordered, unordered and task lists (nested by
// indentation), pipe tables, horizontal rules, and inline code, strong,
// emphasis, strikethrough, links and <autolinks>.
(function () {
  'use strict';

  function el(tag, cls) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    return e;
  }

  const blank = (l) => /^\s*$/.test(l);
  const fenceRE = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/;
  const headingRE = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
  const hrRE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
  const quoteRE = /^ {0,3}>/;
  const itemRE = /^( {0,3})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|$)/;
  const tableSepRE = /^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

  function startsBlock(line, next) {
    return fenceRE.test(line) || headingRE.test(line) || hrRE.test(line) || quoteRE.test(line) ||
      itemRE.test(line) || (next !== undefined && line.includes('|') && tableSepRE.test(next));
  }

  function splitRow(line) {
    let s = line.trim();
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
    const cells = [];
    let cur = '';
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\\' && s[i + 1] === '|') { cur += '|'; i++; continue; }
      if (s[i] === '|') { cells.push(cur.trim()); cur = ''; continue; }
      cur += s[i];
    }
    cells.push(cur.trim());
    return cells;
  }

  function parseBlocks(lines, parent) {
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (blank(line)) { i++; continue; }
      if ((m = line.match(fenceRE))) {
        const fence = m[1];
        const close = new RegExp('^ {0,3}' + (fence[0] === '`' ? '`' : '~') + '{' + fence.length + ',}\\s*$');
        const body = [];
        i++;
        while (i < lines.length && !close.test(lines[i])) body.push(lines[i++]);
        i++;
        const pre = el('pre');
        const code = el('code');
        const lang = m[2].trim().split(/\s+/)[0].replace(/[^\w+-]/g, '');
        if (lang) code.className = 'language-' + lang;
        code.textContent = body.join('\n');
        pre.append(code);
        parent.append(pre);
        continue;
      }
      if ((m = line.match(headingRE))) {
        const hd = el('h' + m[1].length);
        inline(m[2] || '', hd);
        parent.append(hd);
        i++;
        continue;
      }
      if (hrRE.test(line)) { parent.append(el('hr')); i++; continue; }
      if (quoteRE.test(line)) {
        const body = [];
        while (i < lines.length && !blank(lines[i]) && (quoteRE.test(lines[i]) || body.length)) {
          if (!quoteRE.test(lines[i]) && startsBlock(lines[i])) break;
          body.push(lines[i].replace(/^ {0,3}> ?/, ''));
          i++;
        }
        const bq = el('blockquote');
        parseBlocks(body, bq);
        parent.append(bq);
        continue;
      }
      if (line.includes('|') && i + 1 < lines.length && tableSepRE.test(lines[i + 1])) {
        const head = splitRow(line);
        const aligns = splitRow(lines[i + 1]).map((c) =>
          c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : '');
        i += 2;
        const table = el('table');
        const thead = el('thead');
        const tr = el('tr');
        head.forEach((c, k) => {
          const th = el('th', aligns[k] ? 'align-' + aligns[k] : '');
          inline(c, th);
          tr.append(th);
        });
        thead.append(tr);
        table.append(thead);
        const tbody = el('tbody');
        while (i < lines.length && !blank(lines[i]) && lines[i].includes('|')) {
          const row = el('tr');
          const cells = splitRow(lines[i++]);
          for (let k = 0; k < head.length; k++) {
            const td = el('td', aligns[k] ? 'align-' + aligns[k] : '');
            inline(cells[k] || '', td);
            row.append(td);
          }
          tbody.append(row);
        }
        table.append(tbody);
        const wrap = el('div', 'table-wrap');
        wrap.append(table);
        parent.append(wrap);
        continue;
      }
      if ((m = line.match(itemRE))) {
        i = parseList(lines, i, parent);
        continue;
      }
      const para = [line.trim()];
      i++;
      while (i < lines.length && !blank(lines[i]) && !startsBlock(lines[i], lines[i + 1])) para.push(lines[i++].trim());
      const p = el('p');
      inline(para.join('\n'), p);
      parent.append(p);
    }
  }

  function parseList(lines, i, parent) {
    const first = lines[i].match(itemRE);
    const ordered = /\d/.test(first[2]);
    const list = el(ordered ? 'ol' : 'ul');
    if (ordered) {
      const start = parseInt(first[2], 10);
      if (start !== 1) list.setAttribute('start', String(start));
    }
    let loose = false;
    while (i < lines.length) {
      const m = lines[i].match(itemRE);
      if (!m || /\d/.test(m[2]) !== ordered) break;
      const item = [m[3] || ''];
      const indent = m[1].length + m[2].length + 1; // where the item's content starts
      const nestedLine = (l) => l.replace(/\t/g, '    ').match(/^ */)[0].length >= indent;
      const unindent = (l) => l.replace(/\t/g, '    ').slice(indent);
      i++;
      let sawBlank = false;
      while (i < lines.length) {
        const l = lines[i];
        if (blank(l)) {
          if (i + 1 < lines.length && !blank(lines[i + 1]) && nestedLine(lines[i + 1])) { item.push(''); sawBlank = true; i++; continue; }
          break;
        }
        if (nestedLine(l)) { item.push(unindent(l)); i++; continue; }
        if (itemRE.test(l)) break;
        if (startsBlock(l, lines[i + 1])) break;
        item.push(l.trim());
        i++;
      }
      const li = el('li');
      let text = item;
      const task = item[0].match(/^\[([ xX])\][ \t]+(.*)$/);
      if (task) {
        li.className = 'task';
        const box = el('span', 'checkbox');
        box.textContent = task[1] === ' ' ? '\u2610 ' : '\u2611 ';
        li.append(box);
        text = [task[2]].concat(item.slice(1));
      }
      if (sawBlank) {
        parseBlocks(text, li);
      } else {
        // A tight item: its text inline, then any nested blocks.
        let k = 1;
        while (k < text.length && !startsBlock(text[k], text[k + 1])) k++;
        inline(text.slice(0, k).join('\n'), li);
        if (k < text.length) parseBlocks(text.slice(k), li);
      }
      list.append(li);
      // A blank line between items makes the list loose; keep going if
      // another item of the same list follows.
      let j = i;
      while (j < lines.length && blank(lines[j])) j++;
      if (j > i && j < lines.length) {
        const n = lines[j].match(itemRE);
        if (n && /\d/.test(n[2]) === ordered) { loose = true; i = j; continue; }
      }
      if (j > i) break;
    }
    if (loose) list.classList.add('loose');
    parent.append(list);
    return i;
  }

  // safeHref returns url when it is an absolute http(s) or mailto URL, and
  // null otherwise (javascript:, data:, relative paths …).
  function safeHref(url) {
    try {
      const u = new URL(url.trim());
      if (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:') return u.href;
    } catch (e) { /* not an absolute URL */ }
    return null;
  }

  function link(href, label, parent, asImage) {
    const safe = safeHref(href);
    if (!safe) {
      const span = el('span', 'unlinked');
      inline(asImage ? '[image: ' + label + ']' : label, span);
      parent.append(span);
      return;
    }
    const a = el('a', asImage ? 'image-link' : '');
    a.setAttribute('href', safe);
    a.setAttribute('rel', 'noopener noreferrer nofollow');
    a.setAttribute('target', '_blank');
    if (asImage) a.textContent = '[image: ' + (label || safe) + ']';
    else inline(label, a);
    parent.append(a);
  }

  // findClose finds the closing delimiter of an emphasis opened at i.
  function findClose(text, from, delim) {
    let j = from;
    while ((j = text.indexOf(delim, j)) !== -1) {
      if (j > from && !/\s/.test(text[j - 1])) {
        if (delim.length === 1 && text[j + 1] === delim) { j += 2; continue; }
        return j;
      }
      j += delim.length;
    }
    return -1;
  }

  // matchBracket returns the index of the ']' that closes the '[' at i.
  function matchBracket(text, i) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      if (text[j] === '\\') { j++; continue; }
      if (text[j] === '[') depth++;
      else if (text[j] === ']' && --depth === 0) return j;
    }
    return -1;
  }

  // matchParen returns the index of the ')' that closes the '(' at i.
  function matchParen(text, i) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      if (text[j] === '\\') { j++; continue; }
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) return j;
    }
    return -1;
  }

  function inline(text, parent) {
    let buf = '';
    const flush = () => { if (buf) { parent.append(document.createTextNode(buf)); buf = ''; } };
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\' && i + 1 < text.length && /[\\`*_{}[\]()#+\-.!|~<>]/.test(text[i + 1])) {
        buf += text[i + 1];
        i += 2;
        continue;
      }
      if (c === '\\' && text[i + 1] === '\n') { flush(); parent.append(el('br')); i += 2; continue; }
      if (c === '`') {
        let n = 0;
        while (text[i + n] === '`') n++;
        const run = '`'.repeat(n);
        let j = text.indexOf(run, i + n);
        while (j !== -1 && text[j + n] === '`') j = text.indexOf(run, j + n + 1);
        if (j !== -1) {
          flush();
          const code = el('code');
          let body = text.slice(i + n, j).replace(/\n/g, ' ');
          if (/^ .* $/.test(body) && body.trim()) body = body.slice(1, -1);
          code.textContent = body;
          parent.append(code);
          i = j + n;
          continue;
        }
        buf += run;
        i += n;
        continue;
      }
      if ((c === '*' || c === '_') && text[i + 1] === c && text[i + 2] && !/\s/.test(text[i + 2])) {
        const j = findClose(text, i + 2, c + c);
        if (j !== -1) {
          flush();
          const strong = el('strong');
          inline(text.slice(i + 2, j), strong);
          parent.append(strong);
          i = j + 2;
          continue;
        }
      }
      if ((c === '*' || c === '_') && text[i + 1] && !/\s/.test(text[i + 1]) && text[i + 1] !== c &&
          !(c === '_' && i > 0 && /[\p{L}\p{N}]/u.test(text[i - 1]))) {
        const j = findClose(text, i + 1, c);
        if (j !== -1 && !(c === '_' && /[\p{L}\p{N}]/u.test(text[j + 1] || ''))) {
          flush();
          const em = el('em');
          inline(text.slice(i + 1, j), em);
          parent.append(em);
          i = j + 1;
          continue;
        }
      }
      if (c === '~' && text[i + 1] === '~') {
        const j = text.indexOf('~~', i + 2);
        if (j > i + 2) {
          flush();
          const del = el('del');
          inline(text.slice(i + 2, j), del);
          parent.append(del);
          i = j + 2;
          continue;
        }
      }
      if (c === '[' || (c === '!' && text[i + 1] === '[')) {
        const img = c === '!';
        const open = img ? i + 1 : i;
        const close = matchBracket(text, open);
        if (close !== -1 && text[close + 1] === '(') {
          const end = matchParen(text, close + 1);
          if (end !== -1) {
            const target = text.slice(close + 2, end).trim().replace(/\s+"[^"]*"$/, '').replace(/^<(.*)>$/, '$1');
            flush();
            link(target, text.slice(open + 1, close), parent, img);
            i = end + 1;
            continue;
          }
        }
      }
      if (c === '<') {
        const m = text.slice(i).match(/^<((?:https?|mailto):[^\s<>]+)>/i);
        if (m) {
          flush();
          const a = el('a');
          const safe = safeHref(m[1]);
          if (safe) {
            a.setAttribute('href', safe);
            a.setAttribute('rel', 'noopener noreferrer nofollow');
            a.setAttribute('target', '_blank');
          }
          a.textContent = m[1];
          parent.append(a);
          i += m[0].length;
          continue;
        }
      }
      if (c === '\n') {
        if (/ {2,}$/.test(buf)) {
          buf = buf.replace(/ +$/, '');
          flush();
          parent.append(el('br'));
        } else {
          buf += ' ';
        }
        i++;
        continue;
      }
      buf += c;
      i++;
    }
    flush();
  }

  // render returns the markdown source as a DocumentFragment.
  function render(src) {
    const frag = document.createDocumentFragment();
    parseBlocks(String(src || '').replace(/\r\n?/g, '\n').split('\n'), frag);
    return frag;
  }

  // plain is the text markdown shows, on one line: a card's preview, where
  // markup would only be noise. The blocks are parted by spaces; a marker
  // left unclosed (a description cut at 120 characters) is dropped.
  const blockTags = /^(P|LI|H[1-6]|PRE|BLOCKQUOTE|TR|TD|TH|HR)$/;
  function plain(src) {
    const parts = [];
    const walk = (n) => {
      if (n.nodeType === 3) { parts.push(n.nodeValue); return; }
      n.childNodes.forEach(walk);
      if (blockTags.test(n.nodeName)) parts.push(' ');
    };
    walk(render(src || ''));
    return parts.join('').replace(/\*\*+|__+|~~+|`+/g, '').replace(/(^|\s)#{1,6}(?=\s)/g, '$1').replace(/\s+/g, ' ').trim();
  }

  window.SudocodeMarkdown = { render: render, inline: inline, safeHref: safeHref, plain: plain };
})();
