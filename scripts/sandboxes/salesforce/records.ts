// sObject storage for one org and the write rules of the REST API: field existence and access,
// type coercion with Salesforce's error codes, required fields, restricted picklists, references,
// unique external ids, and Opportunity's stage-derived fields.
import { newSalesforceId, to18 } from './ids';
import { OPPORTUNITY_STAGES, fieldOf } from './schema';
import type { FieldDef, SObjectDef } from './schema';

export type SfRecord = Record<string, unknown>;

export class SfError extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly fields: string[] | undefined;

  constructor(status: number, errorCode: string, message: string, fields?: string[]) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.fields = fields;
  }

  body(): unknown[] {
    return [{ message: this.message, errorCode: this.errorCode, ...(this.fields ? { fields: this.fields } : {}) }];
  }
}

export function sfTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+0000');
}

export interface SfUser {
  id: string;
  username: string;
  displayName: string;
  email: string;
}

export class SfOrg {
  readonly orgId: string;
  readonly users: SfUser[];
  readonly #tables = new Map<string, Map<string, SfRecord>>();
  apiRequests = 0;

  constructor(orgId: string, users: SfUser[]) {
    this.orgId = orgId;
    this.users = users;
  }

  table(type: string): Map<string, SfRecord> {
    let t = this.#tables.get(type);
    if (!t) {
      t = new Map();
      this.#tables.set(type, t);
    }
    return t;
  }

  find(type: string, id: string): SfRecord | undefined {
    const full = to18(id);
    if (!full) return undefined;
    const lower = full.toLowerCase();
    for (const r of this.table(type).values()) if ((r['Id'] as string).toLowerCase() === lower) return r;
    return undefined;
  }
}

function parserError(type: string, value: unknown, field: string): SfError {
  return new SfError(
    400,
    'JSON_PARSER_ERROR',
    `Cannot deserialize instance of ${type} from ${typeof value === 'string' ? 'VALUE_STRING' : typeof value === 'number' ? 'VALUE_NUMBER' : typeof value === 'boolean' ? `VALUE_${String(value).toUpperCase()}` : 'START_OBJECT'} value ${JSON.stringify(value)} or request may be missing a required field (field ${field})`,
  );
}

function labelOf(f: FieldDef): string {
  return f.label ?? f.name.replace(/__c$/, '').replace(/Id$/, ' ID').replace(/_/g, ' ');
}

function isValidDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

function coerce(org: SfOrg, f: FieldDef, value: unknown): unknown {
  if (value === null) return null;
  switch (f.type) {
    case 'string':
    case 'textarea':
    case 'phone':
    case 'url':
    case 'email':
    case 'picklist': {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw parserError('string', value, f.name);
      const s = String(value);
      if (s === '') return null;
      if (f.length !== undefined && s.length > f.length) {
        throw new SfError(400, 'STRING_TOO_LONG', `${labelOf(f)}: data value too large: ${s.slice(0, 50)} (max length=${f.length})`, [f.name]);
      }
      if (f.type === 'email' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(s)) throw new SfError(400, 'INVALID_EMAIL_ADDRESS', `${labelOf(f)}: invalid email address: ${s}`, [f.name]);
      if (f.type === 'picklist' && f.restrictedPicklist && !f.picklistValues?.includes(s)) {
        throw new SfError(400, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', `${labelOf(f)}: bad value for restricted picklist field: ${s}`, [f.name]);
      }
      return s;
    }
    case 'boolean':
      if (typeof value !== 'boolean') throw parserError('boolean', value, f.name);
      return value;
    case 'currency':
    case 'percent':
    case 'double': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      if (!Number.isFinite(n)) throw parserError(f.type === 'currency' ? 'currency' : 'double', value, f.name);
      return f.scale !== undefined ? Number(n.toFixed(f.scale)) : n;
    }
    case 'date':
      if (typeof value !== 'string' || !isValidDate(value.slice(0, 10))) throw parserError('date', value, f.name);
      return value.slice(0, 10);
    case 'datetime': {
      const t = typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(t)) throw parserError('datetime', value, f.name);
      return sfTimestamp(t);
    }
    case 'reference':
    case 'id': {
      if (typeof value !== 'string') throw parserError('reference', value, f.name);
      const id = to18(value);
      const target = f.referenceTo;
      if (!id) throw new SfError(400, 'MALFORMED_ID', `${labelOf(f)}: id value of incorrect type: ${value}`, [f.name]);
      if (target === 'User') {
        const user = org.users.find((u) => u.id.toLowerCase() === id.toLowerCase());
        if (!user) throw new SfError(400, 'INVALID_CROSS_REFERENCE_KEY', `${labelOf(f)}: id value of incorrect type: ${value}`, [f.name]);
        return user.id;
      }
      const rec = target ? org.find(target, id) : undefined;
      if (!rec || rec['IsDeleted'] === true) throw new SfError(400, 'INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', [f.name]);
      return rec['Id'];
    }
  }
}

function sameExternal(f: FieldDef, a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false;
  return f.caseSensitive ? String(a) === String(b) : String(a).toLowerCase() === String(b).toLowerCase();
}

export function findByExternalId(org: SfOrg, def: SObjectDef, f: FieldDef, value: string): SfRecord[] {
  return [...org.table(def.name).values()].filter((r) => r['IsDeleted'] !== true && sameExternal(f, r[f.name], value));
}

function deriveOpportunity(rec: SfRecord, stageChanged: boolean, body: Record<string, unknown>): void {
  const stage = OPPORTUNITY_STAGES[rec['StageName'] as string];
  if (!stage) return;
  rec['IsClosed'] = stage.closed;
  rec['IsWon'] = stage.won;
  if (stageChanged && !Object.keys(body).some((k) => k.toLowerCase() === 'probability')) rec['Probability'] = stage.probability;
  if (stageChanged && !Object.keys(body).some((k) => k.toLowerCase() === 'forecastcategoryname')) {
    rec['ForecastCategoryName'] = stage.forecastCategory === 'BestCase' ? 'Best Case' : stage.forecastCategory;
  }
}

/** Validates and applies a JSON body; returns the canonical field names that were written. */
function applyBody(org: SfOrg, def: SObjectDef, rec: SfRecord, body: Record<string, unknown>, mode: 'insert' | 'update'): string[] {
  const written: string[] = [];
  const notWritable: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (key === 'attributes') continue;
    const f = fieldOf(def, key);
    if (!f) throw new SfError(400, 'INVALID_FIELD', `No such column '${key}' on sobject of type ${def.name}`);
    if (mode === 'insert' ? !f.createable : !f.updateable) {
      notWritable.push(f.name);
      continue;
    }
    rec[f.name] = coerce(org, f, value);
    written.push(f.name);
  }
  if (notWritable.length > 0) {
    throw new SfError(
      400,
      'INVALID_FIELD_FOR_INSERT_UPDATE',
      `Unable to create/update fields: ${notWritable.join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
      notWritable,
    );
  }
  return written;
}

function checkUnique(org: SfOrg, def: SObjectDef, rec: SfRecord): void {
  for (const f of def.fields) {
    if (!f.unique || rec[f.name] === null || rec[f.name] === undefined) continue;
    const clash = [...org.table(def.name).values()].find((r) => r['Id'] !== rec['Id'] && r['IsDeleted'] !== true && sameExternal(f, r[f.name], rec[f.name]));
    if (clash) {
      throw new SfError(400, 'DUPLICATE_VALUE', `duplicate value found: ${f.name} duplicates value on record with id: ${clash['Id'] as string}`, []);
    }
  }
}

export function insertRecord(org: SfOrg, def: SObjectDef, body: Record<string, unknown>, userId: string, nowMs: number, preset: SfRecord = {}): SfRecord {
  const rec: SfRecord = {};
  for (const f of def.fields) rec[f.name] = null;
  Object.assign(rec, preset);
  applyBody(org, def, rec, body, 'insert');
  const missing = def.fields.filter((f) => f.required && (rec[f.name] === null || rec[f.name] === undefined)).map((f) => f.name);
  if (missing.length > 0) throw new SfError(400, 'REQUIRED_FIELD_MISSING', `Required fields are missing: [${missing.join(', ')}]`, missing);
  const now = sfTimestamp(nowMs);
  Object.assign(rec, {
    Id: newSalesforceId(def.keyPrefix),
    IsDeleted: false,
    CreatedDate: now,
    CreatedById: userId,
    LastModifiedDate: now,
    LastModifiedById: userId,
    SystemModstamp: now,
  });
  rec['OwnerId'] ??= userId;
  if (def.name === 'Opportunity') deriveOpportunity(rec, true, body);
  checkUnique(org, def, rec);
  org.table(def.name).set(rec['Id'] as string, rec);
  return rec;
}

export function updateRecord(org: SfOrg, def: SObjectDef, rec: SfRecord, body: Record<string, unknown>, userId: string, nowMs: number): void {
  const draft = { ...rec };
  const written = applyBody(org, def, draft, body, 'update');
  const cleared = def.fields.filter((f) => f.required && written.includes(f.name) && draft[f.name] === null).map((f) => f.name);
  if (cleared.length > 0) throw new SfError(400, 'REQUIRED_FIELD_MISSING', `Required fields are missing: [${cleared.join(', ')}]`, cleared);
  if (def.name === 'Opportunity') deriveOpportunity(draft, draft['StageName'] !== rec['StageName'], body);
  checkUnique(org, def, draft);
  const now = sfTimestamp(nowMs);
  Object.assign(rec, draft, { LastModifiedDate: now, LastModifiedById: userId, SystemModstamp: now });
}

export function renderRecord(def: SObjectDef, rec: SfRecord, version: string, fields?: readonly string[]): SfRecord {
  const out: SfRecord = { attributes: { type: def.name, url: `/services/data/v${version}/sobjects/${def.name}/${rec['Id'] as string}` } };
  const names = fields ? fields.map((n) => fieldOf(def, n)?.name ?? n) : def.fields.map((f) => f.name);
  for (const n of names) out[n] = rec[n] ?? null;
  return out;
}
