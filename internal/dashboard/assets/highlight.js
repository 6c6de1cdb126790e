// Syntax highlighting for the review's diffs: a small tokenizer that
// knows, for the common languages, their keywords, strings, comments and
// numbers — enough to read a diff, without a library (the page loads
// nothing from elsewhere). A line is split into [class, text] tokens;
// state carries a block comment over to the next line.
window.SudocodeHighlight = (function () {
  'use strict';

  const words = (s) => new Set(s.split(' '));
  const cLike = 'if else for while do switch case default break continue return goto struct union enum typedef static const sizeof void int char long short float double unsigned signed extern inline true false NULL nullptr';
  const langs = {
    go: { kw: words('break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota any error string int int64 uint8 byte rune bool float64 make new len cap append'),
      line: '//', block: ['/*', '*/'], quotes: '"\'`' },
    js: { kw: words('async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield null undefined true false interface type enum implements readonly'),
      line: '//', block: ['/*', '*/'], quotes: '"\'`' },
    py: { kw: words('and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False self'),
      line: '#', quotes: '"\'' },
    sh: { kw: words('if then else elif fi for while until do done case esac in function return local export readonly set unset echo exit shift'),
      line: '#', quotes: '"\'' },
    rs: { kw: words('as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err'),
      line: '//', block: ['/*', '*/'], quotes: '"' },
    c: { kw: words(cLike + ' class public private protected virtual template typename namespace using new delete this throw try catch final abstract extends implements import package interface boolean String'),
      line: '//', block: ['/*', '*/'], quotes: '"\'' },
    rb: { kw: words('def end if elsif else unless while until for in do return class module self nil true false and or not begin rescue ensure yield require'),
      line: '#', quotes: '"\'' },
    css: { kw: words('important media import from to'), block: ['/*', '*/'], quotes: '"\'' },
    json: { kw: words('true false null'), quotes: '"' },
    yaml: { kw: words('true false null yes no on off'), line: '#', quotes: '"\'' },
    sql: { kw: words('select from where and or not insert into values update set delete create table index primary key join left right inner on group by order limit as null is in exists'),
      line: '--', block: ['/*', '*/'], quotes: '\'"', fold: true },
  };
  const byExt = { go: 'go', js: 'js', mjs: 'js', cjs: 'js', ts: 'js', tsx: 'js', jsx: 'js', py: 'py', sh: 'sh', bash: 'sh', zsh: 'sh',
    rs: 'rs', c: 'c', h: 'c', cc: 'c', cpp: 'c', hpp: 'c', java: 'c', kt: 'c', cs: 'c', swift: 'c', rb: 'rb', css: 'css',
    scss: 'css', json: 'json', yaml: 'yaml', yml: 'yaml', toml: 'yaml', sql: 'sql' };

  // lang is the language of a file by its name, or null (plain text).
  function lang(file) {
    const base = String(file).split('/').pop();
    if (base === 'Makefile' || base === 'Dockerfile') return langs.sh;
    const ext = base.includes('.') ? base.split('.').pop().toLowerCase() : '';
    return langs[byExt[ext]] || null;
  }

  const number = /^(0[xX][\da-fA-F_]+|\d[\d_]*(\.\d+)?([eE][+-]?\d+)?)/;
  const ident = /^[A-Za-z_$][\w$]*/;

  // tokens splits line into [class, text] pairs ('' for plain text);
  // state.block is true while inside a block comment.
  function tokens(line, l, state) {
    if (!l) return [['', line]];
    const out = [];
    const push = (cls, text) => {
      const last = out[out.length - 1];
      if (last && last[0] === cls) last[1] += text; else out.push([cls, text]);
    };
    let i = 0;
    while (i < line.length) {
      const rest = line.slice(i);
      if (state.block) {
        const end = rest.indexOf(l.block[1]);
        const n = end < 0 ? rest.length : end + l.block[1].length;
        push('com', rest.slice(0, n));
        i += n;
        if (end >= 0) state.block = false;
        continue;
      }
      if (l.line && rest.startsWith(l.line)) { push('com', rest); break; }
      if (l.block && rest.startsWith(l.block[0])) { state.block = true; push('com', l.block[0]); i += l.block[0].length; continue; }
      const c = rest[0];
      if (l.quotes.includes(c)) {
        let j = 1;
        while (j < rest.length && rest[j] !== c) j += rest[j] === '\\' ? 2 : 1;
        push('str', rest.slice(0, j + 1));
        i += j + 1;
        continue;
      }
      const prev = i > 0 ? line[i - 1] : ' ';
      const m = /[\w$]/.test(prev) ? null : (number.exec(rest) || ident.exec(rest));
      if (m) {
        const w = m[0];
        const isNum = /^\d/.test(w);
        push(isNum ? 'num' : (l.kw.has(l.fold ? w.toLowerCase() : w) ? 'kw' : ''), w);
        i += w.length;
        continue;
      }
      push('', c);
      i++;
    }
    return out;
  }

  return { lang, tokens };
})();
