// The subset of Stripe's Search Query Language that customer search supports:
//   email:'a@b.c'   name~'acm'   metadata['tenant']:'t1'   created>1700000000   -phone:'555'
// joined by AND or OR (not both), at most 10 clauses. Exact matches are case-insensitive and
// substring (~) needs at least 3 characters, as Stripe documents.
import { invalidRequest } from './errors';
import type { SearchableCustomer } from './store';

type Op = ':' | '~' | '>' | '<' | '>=' | '<=';

interface Clause {
  negate: boolean;
  field: string;
  metadataKey: string | undefined;
  op: Op;
  value: string | number | null;
}

const FIELDS = new Set(['created', 'email', 'metadata', 'name', 'phone']);

function syntax(msg: string): Error {
  return invalidRequest(`Invalid query: ${msg}`, { param: 'query' });
}

function readQuoted(q: string, i: number): [string, number] {
  const quote = q[i];
  let out = '';
  let j = i + 1;
  while (j < q.length && q[j] !== quote) {
    if (q[j] === '\\' && j + 1 < q.length) j++;
    out += q[j];
    j++;
  }
  if (j >= q.length) throw syntax(`unterminated string starting at position ${i}`);
  return [out, j + 1];
}

export function parseSearchQuery(q: string): { clauses: Clause[]; joiner: 'AND' | 'OR' } {
  const clauses: Clause[] = [];
  let joiner: 'AND' | 'OR' | undefined;
  let i = 0;
  const skipWs = () => {
    while (i < q.length && /\s/.test(q[i] as string)) i++;
  };
  for (;;) {
    skipWs();
    let negate = false;
    if (q[i] === '-') {
      negate = true;
      i++;
    }
    const fieldMatch = /^[a-z_]+/.exec(q.slice(i));
    if (!fieldMatch) throw syntax(`expected a field name at position ${i}`);
    const field = fieldMatch[0];
    i += field.length;
    let metadataKey: string | undefined;
    if (q[i] === '[') {
      i++;
      if (q[i] !== "'" && q[i] !== '"') throw syntax(`expected a quoted key at position ${i}`);
      [metadataKey, i] = readQuoted(q, i);
      if (q[i] !== ']') throw syntax(`expected ] at position ${i}`);
      i++;
    }
    if (!FIELDS.has(field)) {
      throw invalidRequest(
        `Field \`${field}\` is an unsupported search field for resource \`customers\`. See https://stripe.com/docs/search#query-fields-for-customers for a list of supported fields.`,
        { param: 'query' },
      );
    }
    if (field === 'metadata' && metadataKey === undefined) throw syntax('metadata requires a key, e.g. metadata[\'key\']');
    const opMatch = /^(>=|<=|:|~|>|<)/.exec(q.slice(i));
    if (!opMatch) throw syntax(`expected an operator at position ${i}`);
    const op = opMatch[0] as Op;
    i += op.length;
    let value: string | number | null;
    if (q[i] === "'" || q[i] === '"') {
      [value, i] = readQuoted(q, i);
    } else {
      const raw = /^[^\s]+/.exec(q.slice(i))?.[0];
      if (!raw) throw syntax(`expected a value at position ${i}`);
      i += raw.length;
      if (raw === 'null') value = null;
      else if (/^-?\d+(\.\d+)?$/.test(raw)) value = Number(raw);
      else throw syntax(`values must be quoted: ${raw}`);
    }
    if (['>', '<', '>=', '<='].includes(op) && field !== 'created') throw syntax(`operator ${op} is only supported on numeric fields`);
    if (op === '~' && (typeof value !== 'string' || value.length < 3)) throw syntax('substring matches (~) need at least 3 characters');
    clauses.push({ negate, field, metadataKey, op, value });
    if (clauses.length > 10) throw syntax('a query can have at most 10 clauses');
    skipWs();
    if (i >= q.length) break;
    const j = /^(AND|OR)\b/.exec(q.slice(i));
    if (!j) throw syntax(`expected AND or OR at position ${i}`);
    const word = j[0] as 'AND' | 'OR';
    if (joiner && joiner !== word) throw syntax('AND and OR cannot be combined in one query');
    joiner = word;
    i += word.length;
  }
  return { clauses, joiner: joiner ?? 'AND' };
}

function clauseMatches(c: Clause, doc: SearchableCustomer): boolean {
  let actual: string | number | null;
  if (c.field === 'metadata') actual = doc.metadata[c.metadataKey as string] ?? null;
  else if (c.field === 'created') actual = doc.created;
  else actual = doc[c.field as 'email' | 'name' | 'phone'];
  let hit: boolean;
  if (c.op === ':') {
    if (c.value === null) hit = actual === null || actual === '';
    else hit = actual !== null && String(actual).toLowerCase() === String(c.value).toLowerCase();
  } else if (c.op === '~') {
    hit = actual !== null && String(actual).toLowerCase().includes(String(c.value).toLowerCase());
  } else {
    const a = Number(actual);
    const v = Number(c.value);
    hit = c.op === '>' ? a > v : c.op === '<' ? a < v : c.op === '>=' ? a >= v : a <= v;
  }
  return c.negate ? !hit : hit;
}

export function searchMatches(query: ReturnType<typeof parseSearchQuery>, doc: SearchableCustomer): boolean {
  return query.joiner === 'AND' ? query.clauses.every((c) => clauseMatches(c, doc)) : query.clauses.some((c) => clauseMatches(c, doc));
}
