// Salesforce REST API under /services/data: versions, sObject describe, create / read / update /
// delete by Id, read and upsert by external id (201 created, 200 updated from v46.0 and 204
// before, 300 on multiple matches, updateOnly), SOQL query and queryAll with server-side cursors
// (nextRecordsUrl), the error body `[{message, errorCode, fields?}]` and Sforce-Limit-Info.
import { json } from '../core/http-fake';
import type { FakeRequest, FakeResponse } from '../core/http-fake';
import { randomAlnum } from '../core/random';
import { SfError, findByExternalId, insertRecord, renderRecord, updateRecord } from './records';
import type { SfOrg, SfRecord, SfUser } from './records';
import { fieldOf } from './schema';
import type { SObjectDef } from './schema';
import { executeSoql, parseSoql } from './soql';

export const MIN_API_VERSION = 31;
export const MAX_API_VERSION = 66;
const DAILY_API_LIMIT = 15_000;

export interface RestDeps {
  objects(name: string): SObjectDef | undefined;
  now(): number;
  queryBatchSize: number;
}

interface Cursor {
  org: SfOrg;
  def: SObjectDef;
  fields: string[] | undefined;
  ids: string[];
  position: number;
  version: string;
}

const NOT_FOUND = () => new SfError(404, 'NOT_FOUND', 'The requested resource does not exist');

export class SfRest {
  readonly #deps: RestDeps;
  readonly #cursors = new Map<string, Cursor>();

  constructor(deps: RestDeps) {
    this.#deps = deps;
  }

  versions(): FakeResponse {
    const out = [];
    for (let v = MIN_API_VERSION; v <= MAX_API_VERSION; v++) out.push({ label: `v${v}.0`, url: `/services/data/v${v}.0`, version: `${v}.0` });
    return json(200, out);
  }

  handle(req: FakeRequest, org: SfOrg, user: SfUser, version: string, rest: string[]): FakeResponse {
    org.apiRequests++;
    const limit = { 'sforce-limit-info': `api-usage=${org.apiRequests}/${DAILY_API_LIMIT}` };
    try {
      const out = this.#dispatch(req, org, user, version, rest);
      return { ...out, headers: { ...out.headers, ...limit } };
    } catch (err) {
      if (!(err instanceof SfError)) throw err;
      return json(err.status, err.body(), limit);
    }
  }

  #body(req: FakeRequest): Record<string, unknown> {
    const text = req.body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new SfError(400, 'JSON_PARSER_ERROR', `Unexpected character in request body: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new SfError(400, 'JSON_PARSER_ERROR', 'Cannot deserialize instance of sObject from a non-object value');
    }
    return parsed as Record<string, unknown>;
  }

  #dispatch(req: FakeRequest, org: SfOrg, user: SfUser, version: string, rest: string[]): FakeResponse {
    const [resource, ...more] = rest;
    const base = `/services/data/v${version}`;
    if (resource === undefined || resource === '') {
      return json(200, { sobjects: `${base}/sobjects`, query: `${base}/query`, queryAll: `${base}/queryAll`, search: `${base}/search`, limits: `${base}/limits` });
    }
    if (resource === 'query' || resource === 'queryAll') {
      if (req.method !== 'GET') throw new SfError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${req.method}' not allowed. Allowed are GET`);
      if (more.length === 1) return this.#nextBatch(org, more[0] as string);
      const soql = req.query.get('q');
      if (!soql) throw new SfError(400, 'MALFORMED_QUERY', 'A query string has to be specified');
      return this.#query(org, version, soql, resource === 'queryAll');
    }
    if (resource !== 'sobjects') throw new SfError(404, 'NOT_FOUND', `salesforce-fake does not emulate ${base}/${rest.join('/')}`);
    const [typeName, a, b, ...tooMany] = more;
    if (typeName === undefined) {
      return json(200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: ['Account', 'Opportunity'].map((n) => this.#objectSummary(this.#def(n), base)) });
    }
    if (tooMany.length > 0) throw NOT_FOUND();
    const def = this.#def(typeName);
    if (a === undefined) {
      if (req.method === 'GET') return json(200, { objectDescribe: this.#objectSummary(def, base), recentItems: [] });
      if (req.method !== 'POST') throw new SfError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${req.method}' not allowed. Allowed are GET,POST`);
      const rec = insertRecord(org, def, this.#body(req), user.id, this.#deps.now());
      return json(201, { id: rec['Id'], success: true, errors: [] });
    }
    if (a === 'describe' && b === undefined) {
      if (req.method !== 'GET') throw new SfError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${req.method}' not allowed. Allowed are GET`);
      return json(200, this.#describe(def, base));
    }
    if (b === undefined) return this.#byId(req, org, user, def, version, a);
    return this.#byExternalId(req, org, user, def, version, a, b);
  }

  #def(name: string): SObjectDef {
    const def = this.#deps.objects(name);
    if (!def) throw NOT_FOUND();
    return def;
  }

  #objectSummary(def: SObjectDef, base: string): Record<string, unknown> {
    return {
      name: def.name,
      label: def.label,
      keyPrefix: def.keyPrefix,
      createable: true,
      updateable: true,
      deletable: true,
      queryable: true,
      custom: false,
      urls: { sobject: `${base}/sobjects/${def.name}`, describe: `${base}/sobjects/${def.name}/describe`, rowTemplate: `${base}/sobjects/${def.name}/{ID}` },
    };
  }

  #describe(def: SObjectDef, base: string): Record<string, unknown> {
    return {
      ...this.#objectSummary(def, base),
      fields: def.fields.map((f) => ({
        name: f.name,
        label: f.label ?? f.name,
        type: f.type,
        length: f.length ?? 0,
        createable: f.createable ?? false,
        updateable: f.updateable ?? false,
        nillable: !f.required && f.type !== 'boolean' && f.name !== 'Id',
        externalId: f.externalId ?? false,
        idLookup: f.name === 'Id' || (f.externalId ?? false),
        unique: f.unique ?? false,
        caseSensitive: f.caseSensitive ?? false,
        custom: f.name.endsWith('__c'),
        referenceTo: f.referenceTo ? [f.referenceTo] : [],
        restrictedPicklist: f.restrictedPicklist ?? false,
        picklistValues: (f.picklistValues ?? []).map((v) => ({ active: true, defaultValue: false, label: v, value: v })),
        precision: f.precision ?? 0,
        scale: f.scale ?? 0,
      })),
    };
  }

  #byId(req: FakeRequest, org: SfOrg, user: SfUser, def: SObjectDef, version: string, id: string): FakeResponse {
    const rec = org.find(def.name, id);
    if (!rec || rec['IsDeleted'] === true) throw NOT_FOUND();
    switch (req.method) {
      case 'GET':
        return json(200, renderRecord(def, rec, version, this.#fieldsParam(req, def)));
      case 'PATCH':
        updateRecord(org, def, rec, this.#body(req), user.id, this.#deps.now());
        return { status: 204 };
      case 'DELETE':
        rec['IsDeleted'] = true;
        return { status: 204 };
      default:
        throw new SfError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${req.method}' not allowed. Allowed are HEAD,GET,PATCH,DELETE`);
    }
  }

  #fieldsParam(req: FakeRequest, def: SObjectDef): string[] | undefined {
    const raw = req.query.get('fields');
    if (raw === null) return undefined;
    return raw.split(',').map((n) => {
      const f = fieldOf(def, n.trim());
      if (!f) throw new SfError(400, 'INVALID_FIELD', `No such column '${n.trim()}' on entity '${def.name}'.`);
      return f.name;
    });
  }

  #byExternalId(req: FakeRequest, org: SfOrg, user: SfUser, def: SObjectDef, version: string, fieldName: string, rawValue: string): FakeResponse {
    const field = fieldOf(def, fieldName);
    if (!field || !(field.externalId || field.name === 'Id')) {
      throw new SfError(404, 'NOT_FOUND', `Provided external ID field does not exist or is not accessible: ${fieldName}`);
    }
    const value = decodeURIComponent(rawValue);
    const matches = field.name === 'Id' ? [org.find(def.name, value)].filter((r): r is SfRecord => !!r && r['IsDeleted'] !== true) : findByExternalId(org, def, field, value);
    if (matches.length > 1) {
      return json(300, matches.map((r) => `/services/data/v${version}/sobjects/${def.name}/${r['Id'] as string}`));
    }
    const existing = matches[0];
    if (req.method === 'GET') {
      if (!existing) throw NOT_FOUND();
      return json(200, renderRecord(def, existing, version, this.#fieldsParam(req, def)));
    }
    if (req.method === 'DELETE') {
      if (!existing) throw NOT_FOUND();
      existing['IsDeleted'] = true;
      return { status: 204 };
    }
    if (req.method !== 'PATCH') throw new SfError(405, 'METHOD_NOT_ALLOWED', `HTTP Method '${req.method}' not allowed. Allowed are HEAD,GET,PATCH,DELETE`);
    const body = this.#body(req);
    const withCreated = Number(version) >= 46;
    if (existing) {
      updateRecord(org, def, existing, body, user.id, this.#deps.now());
      if (!withCreated) return { status: 204 };
      return json(200, { id: existing['Id'], success: true, errors: [], created: false });
    }
    if (req.query.get('updateOnly') === 'true') throw NOT_FOUND();
    if (field.name === 'Id') throw NOT_FOUND();
    const rec = insertRecord(org, def, body, user.id, this.#deps.now(), { [field.name]: value });
    return json(201, withCreated ? { id: rec['Id'], success: true, errors: [], created: true } : { id: rec['Id'], success: true, errors: [] });
  }

  #query(org: SfOrg, version: string, soql: string, all: boolean): FakeResponse {
    const q = parseSoql(soql, (n) => this.#deps.objects(n));
    const rows = executeSoql(q, org.table(q.def.name).values(), all);
    if (q.count) return json(200, { totalSize: rows.length, done: true, records: [] });
    const cursor: Cursor = { org, def: q.def, fields: q.fields.map((f) => f.name), ids: rows.map((r) => r['Id'] as string), position: 0, version };
    return this.#page(cursor, rows.length);
  }

  #page(cursor: Cursor, totalSize: number): FakeResponse {
    const size = this.#deps.queryBatchSize;
    const slice = cursor.ids.slice(cursor.position, cursor.position + size);
    const records = slice
      .map((id) => cursor.org.find(cursor.def.name, id))
      .filter((r): r is SfRecord => !!r)
      .map((r) => renderRecord(cursor.def, r, cursor.version, cursor.fields));
    cursor.position += slice.length;
    const done = cursor.position >= cursor.ids.length;
    const body: Record<string, unknown> = { totalSize, done, records };
    if (!done) {
      const locator = `01g5g0000${randomAlnum(9)}-${cursor.position}`;
      this.#cursors.set(locator, cursor);
      body['nextRecordsUrl'] = `/services/data/v${cursor.version}/query/${locator}`;
    }
    return json(200, body);
  }

  #nextBatch(org: SfOrg, locator: string): FakeResponse {
    const cursor = this.#cursors.get(locator);
    if (!cursor || cursor.org !== org) throw new SfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    this.#cursors.delete(locator);
    return this.#page(cursor, cursor.ids.length);
  }
}
