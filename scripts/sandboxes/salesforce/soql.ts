// A SOQL subset over one sObject: SELECT fields | COUNT() FROM Obj [WHERE ...] [ORDER BY ...]
// [LIMIT n] [OFFSET n]. WHERE supports = != <> < <= > >= LIKE IN / NOT IN, NOT, parentheses and
// AND/OR (never mixed without parentheses, as SOQL requires). Literal types are checked against
// field types, string comparison is case-insensitive, and errors carry Salesforce's
// "ERROR at Row:1:Column:N" position block. Relationship paths are not modelled.
import { SfError } from './records';
import type { SfRecord } from './records';
import { fieldOf } from './schema';
import type { FieldDef, SObjectDef } from './schema';

type Literal = { kind: 'string'; v: string } | { kind: 'number'; v: number } | { kind: 'boolean'; v: boolean } | { kind: 'null' } | { kind: 'date'; v: string } | { kind: 'datetime'; v: number };

type Expr =
  | { t: 'and' | 'or'; items: Expr[] }
  | { t: 'not'; item: Expr }
  | { t: 'cmp'; field: FieldDef; op: string; values: Literal[] };

export interface SoqlQuery {
  def: SObjectDef;
  count: boolean;
  fields: FieldDef[];
  where: Expr | undefined;
  orderBy: Array<{ field: FieldDef; desc: boolean; nullsLast: boolean }>;
  limit: number | undefined;
  offset: number;
}

interface Tok {
  t: 'word' | 'string' | 'number' | 'sym' | 'date' | 'datetime';
  v: string;
  col: number;
}

function positioned(soql: string, col: number, message: string): string {
  return `\n${soql}\n${' '.repeat(Math.max(0, col - 1))}^\nERROR at Row:1:Column:${col}\n${message}`;
}

function tokenize(soql: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < soql.length) {
    const rest = soql.slice(i);
    const ch = soql[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const col = i + 1;
    if (ch === "'") {
      let v = '';
      i++;
      while (i < soql.length && soql[i] !== "'") {
        if (soql[i] === '\\') {
          const next = soql[i + 1];
          const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '"': '"', "'": "'", '\\': '\\', _: '\\_', '%': '\\%' };
          if (next === undefined || !(next in map)) {
            throw new SfError(400, 'MALFORMED_QUERY', positioned(soql, i + 1, `Invalid string literal '${soql.slice(col - 1, i + 2)}'. Illegal character sequence '\\${next ?? ''}' in string literal.`));
          }
          v += map[next];
          i += 2;
        } else {
          v += soql[i];
          i++;
        }
      }
      if (i >= soql.length) throw new SfError(400, 'MALFORMED_QUERY', positioned(soql, col, 'unexpected token: <EOF>'));
      i++;
      out.push({ t: 'string', v, col });
      continue;
    }
    const dt = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})/.exec(rest);
    if (dt) {
      out.push({ t: 'datetime', v: dt[0], col });
      i += dt[0].length;
      continue;
    }
    const d = /^\d{4}-\d{2}-\d{2}(?![\d:T])/.exec(rest);
    if (d) {
      out.push({ t: 'date', v: d[0], col });
      i += d[0].length;
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(rest);
    if (num) {
      out.push({ t: 'number', v: num[0], col });
      i += num[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(rest);
    if (word) {
      out.push({ t: 'word', v: word[0], col });
      i += word[0].length;
      continue;
    }
    const sym = /^(!=|<>|<=|>=|[=<>(),])/.exec(rest);
    if (!sym) throw new SfError(400, 'MALFORMED_QUERY', positioned(soql, col, `unexpected token: '${ch}'`));
    out.push({ t: 'sym', v: sym[0], col });
    i += sym[0].length;
  }
  return out;
}

const KEYWORDS = new Set(['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'LIKE', 'ORDER', 'BY', 'ASC', 'DESC', 'NULLS', 'FIRST', 'LAST', 'LIMIT', 'OFFSET']);

const NUMERIC = new Set(['currency', 'percent', 'double']);

function literalFits(f: FieldDef, lit: Literal): string | undefined {
  if (lit.kind === 'null') return undefined;
  if (f.type === 'date') return lit.kind === 'date' ? undefined : 'date and should not be enclosed in quotes';
  if (f.type === 'datetime') return lit.kind === 'datetime' ? undefined : 'dateTime and should not be enclosed in quotes';
  if (NUMERIC.has(f.type)) return lit.kind === 'number' ? undefined : `${f.type === 'currency' ? 'currency' : 'double'} and should not be enclosed in quotes`;
  if (f.type === 'boolean') return lit.kind === 'boolean' ? undefined : 'boolean and should not be enclosed in quotes';
  return lit.kind === 'string' ? undefined : 'string and should be enclosed in quotes';
}

export function parseSoql(soql: string, objects: (name: string) => SObjectDef | undefined): SoqlQuery {
  const toks = tokenize(soql);
  let p = 0;
  const eofCol = soql.length + 1;
  const err = (col: number, msg: string, code = 'MALFORMED_QUERY') => new SfError(400, code, positioned(soql, col, msg));
  const peek = () => toks[p];
  const isKw = (t: Tok | undefined, kw: string) => !!t && t.t === 'word' && t.v.toUpperCase() === kw;
  const kw = (k: string) => {
    if (isKw(peek(), k)) {
      p++;
      return true;
    }
    return false;
  };
  const need = (k: string) => {
    const t = peek();
    if (!isKw(t, k)) throw err(t?.col ?? eofCol, `unexpected token: ${t ? `'${t.v}'` : '<EOF>'}`);
    p++;
  };
  need('SELECT');
  const selected: Tok[] = [];
  let count = false;
  if (isKw(peek(), 'COUNT') && toks[p + 1]?.v === '(' && toks[p + 2]?.v === ')') {
    count = true;
    p += 3;
  } else {
    for (;;) {
      const t = peek();
      if (!t || t.t !== 'word' || KEYWORDS.has(t.v.toUpperCase())) throw err(t?.col ?? eofCol, `unexpected token: ${t ? `'${t.v}'` : '<EOF>'}`);
      selected.push(t);
      p++;
      if (peek()?.v !== ',') break;
      p++;
    }
  }
  need('FROM');
  const objTok = peek();
  if (!objTok || objTok.t !== 'word') throw err(objTok?.col ?? eofCol, `unexpected token: ${objTok ? `'${objTok.v}'` : '<EOF>'}`);
  p++;
  const def = objects(objTok.v);
  if (!def) {
    throw err(objTok.col, `sObject type '${objTok.v}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names.`, 'INVALID_TYPE');
  }
  const resolve = (t: Tok): FieldDef => {
    if (t.v.includes('.')) throw err(t.col, `salesforce-fake does not emulate relationship field paths such as '${t.v}'`, 'INVALID_FIELD');
    const f = fieldOf(def, t.v);
    if (!f) {
      throw err(
        t.col,
        `No such column '${t.v}' on entity '${def.name}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
        'INVALID_FIELD',
      );
    }
    return f;
  };
  const fields = selected.map(resolve);

  const literal = (): Literal => {
    const t = peek();
    if (!t) throw err(eofCol, 'unexpected token: <EOF>');
    p++;
    if (t.t === 'string') return { kind: 'string', v: t.v };
    if (t.t === 'number') return { kind: 'number', v: Number(t.v) };
    if (t.t === 'date') return { kind: 'date', v: t.v };
    if (t.t === 'datetime') return { kind: 'datetime', v: Date.parse(t.v) };
    if (t.t === 'word' && /^(true|false)$/i.test(t.v)) return { kind: 'boolean', v: t.v.toLowerCase() === 'true' };
    if (t.t === 'word' && /^null$/i.test(t.v)) return { kind: 'null' };
    throw err(t.col, `unexpected token: '${t.v}'`);
  };

  const condition = (): Expr => {
    const ft = peek();
    if (!ft || ft.t !== 'word') throw err(ft?.col ?? eofCol, `unexpected token: ${ft ? `'${ft.v}'` : '<EOF>'}`);
    p++;
    const field = resolve(ft);
    let op: string;
    const opTok = peek();
    if (!opTok) throw err(eofCol, 'unexpected token: <EOF>');
    if (isKw(opTok, 'NOT') && isKw(toks[p + 1], 'IN')) {
      p += 2;
      op = 'NOT IN';
    } else if (isKw(opTok, 'IN')) {
      p++;
      op = 'IN';
    } else if (isKw(opTok, 'LIKE')) {
      p++;
      op = 'LIKE';
    } else if (opTok.t === 'sym' && ['=', '!=', '<>', '<', '<=', '>', '>='].includes(opTok.v)) {
      p++;
      op = opTok.v === '<>' ? '!=' : opTok.v;
    } else {
      throw err(opTok.col, `unexpected token: '${opTok.v}'`);
    }
    const values: Literal[] = [];
    const valueCol = peek()?.col ?? eofCol;
    if (op === 'IN' || op === 'NOT IN') {
      if (peek()?.v !== '(') throw err(valueCol, `unexpected token: ${peek() ? `'${peek()?.v}'` : '<EOF>'}`);
      p++;
      values.push(literal());
      while (peek()?.v === ',') {
        p++;
        values.push(literal());
      }
      if (peek()?.v !== ')') throw err(peek()?.col ?? eofCol, `unexpected token: ${peek() ? `'${peek()?.v}'` : '<EOF>'}`);
      p++;
    } else {
      values.push(literal());
    }
    for (const v of values) {
      const bad = literalFits(field, v);
      if (bad) throw err(valueCol, `value of filter criterion for field '${field.name}' must be of type ${bad}`, 'INVALID_FIELD');
    }
    if (op === 'LIKE' && values[0]?.kind !== 'string') throw err(valueCol, `invalid operator on ${field.name}: LIKE requires a string`, 'INVALID_FIELD');
    return { t: 'cmp', field, op, values };
  };

  const term = (): Expr => {
    if (kw('NOT')) return { t: 'not', item: term() };
    if (peek()?.v === '(') {
      p++;
      const e = expr();
      if (peek()?.v !== ')') throw err(peek()?.col ?? eofCol, `unexpected token: ${peek() ? `'${peek()?.v}'` : '<EOF>'}`);
      p++;
      return e;
    }
    return condition();
  };

  const expr = (): Expr => {
    const items = [term()];
    let joiner: 'and' | 'or' | undefined;
    for (;;) {
      const t = peek();
      const j = isKw(t, 'AND') ? 'and' : isKw(t, 'OR') ? 'or' : undefined;
      if (!j) break;
      if (joiner && joiner !== j) throw err((t as Tok).col, `unexpected token: '${(t as Tok).v}'`);
      joiner = j;
      p++;
      items.push(term());
    }
    return items.length === 1 ? (items[0] as Expr) : { t: joiner as 'and' | 'or', items };
  };

  let where: Expr | undefined;
  if (kw('WHERE')) where = expr();
  const orderBy: SoqlQuery['orderBy'] = [];
  if (kw('ORDER')) {
    need('BY');
    for (;;) {
      const t = peek();
      if (!t || t.t !== 'word') throw err(t?.col ?? eofCol, `unexpected token: ${t ? `'${t.v}'` : '<EOF>'}`);
      p++;
      const field = resolve(t);
      const desc = kw('DESC');
      if (!desc) kw('ASC');
      let nullsLast = desc;
      if (kw('NULLS')) {
        if (kw('LAST')) nullsLast = true;
        else {
          need('FIRST');
          nullsLast = false;
        }
      }
      orderBy.push({ field, desc, nullsLast });
      if (peek()?.v !== ',') break;
      p++;
    }
  }
  let limit: number | undefined;
  let offset = 0;
  if (kw('LIMIT')) {
    const t = peek();
    if (!t || t.t !== 'number' || !/^\d+$/.test(t.v)) throw err(t?.col ?? eofCol, `unexpected token: ${t ? `'${t.v}'` : '<EOF>'}`);
    p++;
    limit = Number(t.v);
  }
  if (kw('OFFSET')) {
    const t = peek();
    if (!t || t.t !== 'number' || !/^\d+$/.test(t.v)) throw err(t?.col ?? eofCol, `unexpected token: ${t ? `'${t.v}'` : '<EOF>'}`);
    p++;
    offset = Number(t.v);
    if (offset > 2000) throw err(t.col, 'Maximum SOQL offset allowed is 2000', 'NUMBER_OUTSIDE_VALID_RANGE');
  }
  const extra = peek();
  if (extra) throw err(extra.col, `unexpected token: '${extra.v}'`);
  return { def, count, fields, where, orderBy, limit, offset };
}

function cmpValues(f: FieldDef, a: unknown, b: Literal): number {
  if (b.kind === 'number' || NUMERIC.has(f.type)) return Number(a) - (b.kind === 'number' ? b.v : Number(NaN));
  if (b.kind === 'datetime') return Date.parse(String(a).replace('+0000', 'Z')) - b.v;
  if (b.kind === 'boolean') return Number(a === true) - Number(b.v);
  const bs = b.kind === 'string' || b.kind === 'date' ? b.v : '';
  return String(a).toLowerCase() < bs.toLowerCase() ? -1 : String(a).toLowerCase() > bs.toLowerCase() ? 1 : 0;
}

function likeRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '\\' && (pattern[i + 1] === '%' || pattern[i + 1] === '_')) {
      re += `\\${pattern[i + 1]}`;
      i++;
    } else if (ch === '%') re += '.*';
    else if (ch === '_') re += '.';
    else re += ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'is');
}

function evaluate(e: Expr, r: SfRecord): boolean {
  switch (e.t) {
    case 'and':
      return e.items.every((x) => evaluate(x, r));
    case 'or':
      return e.items.some((x) => evaluate(x, r));
    case 'not':
      return !evaluate(e.item, r);
    case 'cmp': {
      const actual = r[e.field.name];
      const isNull = actual === null || actual === undefined;
      const eq = (lit: Literal) => (lit.kind === 'null' ? isNull : !isNull && cmpValues(e.field, actual, lit) === 0);
      const first = e.values[0] as Literal;
      switch (e.op) {
        case '=':
          return eq(first);
        case '!=':
          return !eq(first);
        case 'IN':
          return e.values.some(eq);
        case 'NOT IN':
          return !e.values.some(eq);
        case 'LIKE':
          return !isNull && likeRegex((first as { v: string }).v).test(String(actual));
        default: {
          if (isNull || first.kind === 'null') return false;
          const d = cmpValues(e.field, actual, first);
          return e.op === '<' ? d < 0 : e.op === '<=' ? d <= 0 : e.op === '>' ? d > 0 : d >= 0;
        }
      }
    }
  }
}

export function executeSoql(q: SoqlQuery, records: Iterable<SfRecord>, includeDeleted: boolean): SfRecord[] {
  let rows = [...records].filter((r) => (includeDeleted || r['IsDeleted'] !== true) && (!q.where || evaluate(q.where, r)));
  if (q.orderBy.length > 0) {
    rows = rows.sort((a, b) => {
      for (const o of q.orderBy) {
        const av = a[o.field.name];
        const bv = b[o.field.name];
        const an = av === null || av === undefined;
        const bn = bv === null || bv === undefined;
        if (an || bn) {
          if (an && bn) continue;
          return an === o.nullsLast ? 1 : -1;
        }
        const d = typeof av === 'number' && typeof bv === 'number' ? av - bv : String(av).toLowerCase().localeCompare(String(bv).toLowerCase());
        if (d !== 0) return o.desc ? -d : d;
      }
      return 0;
    });
  }
  rows = rows.slice(q.offset);
  if (q.limit !== undefined) rows = rows.slice(0, q.limit);
  return rows;
}
