// The QuickBooks Online query language (a SQL subset):
//   SELECT * | COUNT(*) | f1, f2 FROM Entity [WHERE p op v [AND ...]] [ORDERBY f [ASC|DESC], ...]
//   [STARTPOSITION n] [MAXRESULTS n]
// with =, <, >, <=, >=, IN (...), LIKE '%x%'. No OR, as in QBO. Only filterable properties may
// appear in WHERE; name-list entities return only Active records unless Active is filtered on.
import { qboFaults } from './errors';
import type { EntityName, QboEntity, QboRealm } from './realm';

type Value = string | number | boolean;
interface Condition {
  field: string;
  op: '=' | '<' | '>' | '<=' | '>=' | 'IN' | 'LIKE';
  values: Value[];
}
interface Order {
  field: string;
  desc: boolean;
}
export interface ParsedQuery {
  entity: EntityName;
  select: '*' | 'count' | string[];
  where: Condition[];
  orderBy: Order[];
  startPosition: number;
  maxResults: number;
}

const ENTITIES: Record<string, EntityName> = {
  customer: 'Customer',
  invoice: 'Invoice',
  item: 'Item',
  taxcode: 'TaxCode',
  taxrate: 'TaxRate',
  term: 'Term',
  payment: 'Payment',
  companyinfo: 'CompanyInfo',
};

const FILTERABLE: Record<EntityName, readonly string[]> = {
  Customer: ['Id', 'DisplayName', 'GivenName', 'FamilyName', 'CompanyName', 'FullyQualifiedName', 'PrimaryEmailAddr', 'Active', 'Balance', 'MetaData.CreateTime', 'MetaData.LastUpdatedTime'],
  Invoice: ['Id', 'DocNumber', 'TxnDate', 'DueDate', 'CustomerRef', 'Balance', 'TotalAmt', 'MetaData.CreateTime', 'MetaData.LastUpdatedTime'],
  Item: ['Id', 'Name', 'Active', 'Type', 'FullyQualifiedName', 'MetaData.CreateTime', 'MetaData.LastUpdatedTime'],
  TaxCode: ['Id', 'Name', 'Active', 'Taxable'],
  TaxRate: ['Id', 'Name', 'Active'],
  Term: ['Id', 'Name', 'Active'],
  Payment: ['Id', 'TxnDate', 'CustomerRef', 'TotalAmt', 'MetaData.CreateTime', 'MetaData.LastUpdatedTime'],
  CompanyInfo: ['Id'],
};
const NAME_LISTS = new Set<EntityName>(['Customer', 'Item', 'TaxCode', 'TaxRate', 'Term']);

type Token = { t: 'word' | 'str' | 'num' | 'sym'; v: string; at: number };

function tokenize(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const ch = q[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "'") {
      let v = '';
      const at = i++;
      while (i < q.length && q[i] !== "'") {
        if (q[i] === '\\' && i + 1 < q.length) i++;
        v += q[i];
        i++;
      }
      if (i >= q.length) throw qboFaults.queryParse(`Lexical error: unterminated string literal at column ${at + 1}`);
      i++;
      out.push({ t: 'str', v, at });
    } else if (/[0-9-]/.test(ch) && /^-?\d+(\.\d+)?/.test(q.slice(i))) {
      const m = /^-?\d+(\.\d+)?/.exec(q.slice(i)) as RegExpExecArray;
      out.push({ t: 'num', v: m[0], at: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(q.slice(i)) as RegExpExecArray;
      out.push({ t: 'word', v: m[0], at: i });
      i += m[0].length;
    } else {
      const m = /^(<=|>=|<>|!=|[=<>(),*])/.exec(q.slice(i));
      if (!m) throw qboFaults.queryParse(`Encountered " "${ch}" at line 1, column ${i + 1}.`);
      out.push({ t: 'sym', v: m[0], at: i });
      i += m[0].length;
    }
  }
  return out;
}

export function parseQuery(q: string): ParsedQuery {
  const toks = tokenize(q.trim());
  let p = 0;
  const peek = () => toks[p];
  const kw = (word: string) => {
    const t = toks[p];
    if (t && t.t === 'word' && t.v.toUpperCase() === word) {
      p++;
      return true;
    }
    return false;
  };
  const expect = (what: string): Token => {
    const t = toks[p++];
    if (!t) throw qboFaults.queryParse(`Encountered "<EOF>" at line 1. Was expecting ${what}`);
    return t;
  };
  if (!kw('SELECT')) throw qboFaults.queryParse(`Encountered "${peek()?.v ?? '<EOF>'}" at line 1, column 1. Was expecting: "select"`);
  let select: ParsedQuery['select'];
  if (peek()?.v === '*') {
    p++;
    select = '*';
  } else if (peek()?.t === 'word' && peek()?.v.toUpperCase() === 'COUNT') {
    p++;
    for (const s of ['(', '*', ')']) if (expect(s).v !== s) throw qboFaults.queryParse(`Was expecting "${s}" in count(*)`);
    select = 'count';
  } else {
    select = [];
    for (;;) {
      const t = expect('a property name');
      if (t.t !== 'word') throw qboFaults.queryParse(`Encountered "${t.v}" at line 1, column ${t.at + 1}.`);
      select.push(t.v);
      if (peek()?.v !== ',') break;
      p++;
    }
  }
  if (!kw('FROM')) throw qboFaults.queryParse('Was expecting "from"');
  const entTok = expect('an entity name');
  const entity = ENTITIES[entTok.v.toLowerCase()];
  if (!entity) throw qboFaults.queryValidation(`Unable to identify the entity: ${entTok.v}`);
  const where: Condition[] = [];
  const value = (): Value => {
    const t = expect('a value');
    if (t.t === 'str') return t.v;
    if (t.t === 'num') return Number(t.v);
    if (t.t === 'word' && /^(true|false)$/i.test(t.v)) return t.v.toLowerCase() === 'true';
    throw qboFaults.queryParse(`Encountered "${t.v}" at line 1, column ${t.at + 1}. Was expecting a literal`);
  };
  if (kw('WHERE')) {
    for (;;) {
      const f = expect('a property name');
      if (f.t !== 'word') throw qboFaults.queryParse(`Encountered "${f.v}" at line 1, column ${f.at + 1}.`);
      const opTok = expect('an operator');
      const opText = opTok.v.toUpperCase();
      let cond: Condition;
      if (opText === 'IN') {
        if (expect('(').v !== '(') throw qboFaults.queryParse('Was expecting "(" after IN');
        const values: Value[] = [value()];
        while (peek()?.v === ',') {
          p++;
          values.push(value());
        }
        if (expect(')').v !== ')') throw qboFaults.queryParse('Was expecting ")"');
        cond = { field: f.v, op: 'IN', values };
      } else if (['=', '<', '>', '<=', '>=', 'LIKE'].includes(opText)) {
        cond = { field: f.v, op: opText as Condition['op'], values: [value()] };
      } else {
        throw qboFaults.queryParse(`Encountered "${opTok.v}" at line 1, column ${opTok.at + 1}. Was expecting one of "=", "<", ">", "<=", ">=", "in", "like"`);
      }
      where.push(cond);
      if (kw('AND')) continue;
      if (peek()?.t === 'word' && peek()?.v.toUpperCase() === 'OR') throw qboFaults.queryParse('OR is not supported');
      break;
    }
  }
  const orderBy: Order[] = [];
  if (kw('ORDERBY') || (kw('ORDER') && kw('BY'))) {
    for (;;) {
      const f = expect('a property name');
      const desc = kw('DESC');
      if (!desc) kw('ASC');
      orderBy.push({ field: f.v, desc });
      if (peek()?.v !== ',') break;
      p++;
    }
  }
  let startPosition = 1;
  let maxResults = 100;
  for (;;) {
    if (kw('STARTPOSITION')) startPosition = Number(value());
    else if (kw('MAXRESULTS')) maxResults = Number(value());
    else break;
  }
  if (p < toks.length) {
    const t = toks[p] as Token;
    throw qboFaults.queryParse(`Encountered "${t.v}" at line 1, column ${t.at + 1}.`);
  }
  if (!Number.isInteger(startPosition) || startPosition < 1) throw qboFaults.queryValidation('STARTPOSITION must be a positive integer');
  if (!Number.isInteger(maxResults) || maxResults < 1) throw qboFaults.queryValidation('MAXRESULTS must be a positive integer');
  maxResults = Math.min(maxResults, 1000);
  const filterable = FILTERABLE[entity];
  for (const c of where) {
    if (!filterable.some((f) => f.toLowerCase() === c.field.toLowerCase())) throw qboFaults.queryValidation(`property '${c.field}' is not queryable`);
  }
  return { entity, select, where, orderBy, startPosition, maxResults };
}

function getPath(e: QboEntity, field: string): unknown {
  let cur: unknown = e;
  for (const part of field.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    const key = Object.keys(cur).find((k) => k.toLowerCase() === part.toLowerCase());
    cur = key === undefined ? undefined : (cur as Record<string, unknown>)[key];
  }
  // Reference and email/phone types compare by their scalar part.
  if (cur && typeof cur === 'object') {
    const o = cur as Record<string, unknown>;
    return o['value'] ?? o['Address'] ?? o['FreeFormNumber'];
  }
  return cur;
}

function compare(a: unknown, b: Value): number {
  if (typeof b === 'number' || typeof a === 'number') return Number(a) - Number(b);
  if (typeof b === 'boolean') return Number(a === true) - Number(b);
  const as = String(a ?? '');
  // Timestamps compare as instants, other strings case-insensitively as QBO does.
  const ta = Date.parse(as);
  const tb = Date.parse(b);
  if (/^\d{4}-\d{2}-\d{2}/.test(as) && /^\d{4}-\d{2}-\d{2}/.test(b) && !Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return as.toLowerCase().localeCompare(b.toLowerCase());
}

function matches(e: QboEntity, c: Condition): boolean {
  const actual = getPath(e, c.field);
  const first = c.values[0] as Value;
  switch (c.op) {
    case '=':
      return actual !== undefined && compare(actual, first) === 0;
    case 'IN':
      return actual !== undefined && c.values.some((v) => compare(actual, v) === 0);
    case 'LIKE': {
      const re = new RegExp(`^${String(first).split('%').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
      return actual !== undefined && re.test(String(actual));
    }
    case '<':
      return actual !== undefined && compare(actual, first) < 0;
    case '>':
      return actual !== undefined && compare(actual, first) > 0;
    case '<=':
      return actual !== undefined && compare(actual, first) <= 0;
    case '>=':
      return actual !== undefined && compare(actual, first) >= 0;
  }
}

export function runQuery(realm: QboRealm, q: ParsedQuery): Record<string, unknown> {
  let rows = [...realm.table(q.entity).values()];
  const filtersActive = q.where.some((c) => c.field.toLowerCase() === 'active');
  if (NAME_LISTS.has(q.entity) && !filtersActive) rows = rows.filter((r) => r['Active'] !== false);
  rows = rows.filter((r) => q.where.every((c) => matches(r, c)));
  if (q.select === 'count') return { totalCount: rows.length };
  const order = q.orderBy.length > 0 ? q.orderBy : [{ field: 'Id', desc: false }];
  rows.sort((a, b) => {
    for (const o of order) {
      const av = getPath(a, o.field);
      const bv = getPath(b, o.field);
      const d = o.field.toLowerCase() === 'id' ? Number(av) - Number(bv) : compare(av, typeof bv === 'number' || typeof bv === 'boolean' ? bv : String(bv ?? ''));
      if (d !== 0) return o.desc ? -d : d;
    }
    return 0;
  });
  const page = rows.slice(q.startPosition - 1, q.startPosition - 1 + q.maxResults);
  if (page.length === 0) return {};
  const fieldsWanted = q.select;
  const data =
    fieldsWanted === '*'
      ? page.map((r) => structuredClone(r))
      : page.map((r) => {
          const out: QboEntity = { domain: 'QBO', sparse: true, Id: r['Id'] };
          for (const f of fieldsWanted) {
            const key = Object.keys(r).find((k) => k.toLowerCase() === f.toLowerCase());
            if (key !== undefined) out[key] = structuredClone(r[key]);
          }
          return out;
        });
  return { [q.entity]: data, startPosition: q.startPosition, maxResults: page.length };
}
