// The QBO Accounting REST API v3 under /v3/company/{realmId}: bearer authentication and realm
// authorization (gateway errors), `requestid` replay, JSON entity create/update/read/delete/void
// for Customer and Invoice, reads of seeded reference entities, and the query endpoint.
import { json } from '../core/http-fake';
import type { FakeRequest, FakeResponse } from '../core/http-fake';
import { randomAlnum } from '../core/random';
import { createCustomer, createInvoice, createPayment, deleteInvoice, readEntity, updateCustomer, updateInvoice, voidInvoice } from './entities';
import { QboFault, gatewayFault, qboFaults } from './errors';
import type { QboOAuth } from './oauth';
import { parseQuery, runQuery } from './query';
import type { EntityName, QboEntity, QboRealm } from './realm';

const READABLE: Record<string, EntityName> = {
  customer: 'Customer',
  invoice: 'Invoice',
  payment: 'Payment',
  item: 'Item',
  taxcode: 'TaxCode',
  taxrate: 'TaxRate',
  term: 'Term',
  companyinfo: 'CompanyInfo',
};

export function intuitTid(): string {
  return `1-${randomAlnum(8).toLowerCase()}-${randomAlnum(24).toLowerCase()}`;
}

export interface ApiDeps {
  oauth: QboOAuth;
  realm(id: string): QboRealm | undefined;
  now(): number;
  /** Most entities one change-data-capture answer holds (QBO: 1000). */
  cdcMaxResults?: number;
}

function parseJsonBody(req: FakeRequest): Record<string, unknown> {
  const text = req.body.toString('utf8');
  if (text.trim() === '') throw qboFaults.malformedJson('request body is empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw qboFaults.malformedJson(`Unrecognized token in JSON (${(err as Error).message})`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw qboFaults.malformedJson('request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function execute(deps: ApiDeps, req: FakeRequest, realm: QboRealm, rest: string[]): Record<string, unknown> {
  const [resource = '', id] = rest;
  const lower = resource.toLowerCase();
  if (lower === 'query') {
    const q = req.method === 'GET' ? req.query.get('query') : req.body.toString('utf8');
    if (!q) throw qboFaults.requiredParam('query');
    return { QueryResponse: runQuery(realm, parseQuery(q)) };
  }
  if (lower === 'cdc') {
    if (req.method !== 'GET') throw qboFaults.unsupportedOperation(`${req.method} cdc`);
    return changeDataCapture(realm, req, deps.now(), deps.cdcMaxResults ?? CDC_MAX_RESULTS);
  }
  const entity = READABLE[lower];
  if (!entity) throw qboFaults.unsupportedOperation(`${req.method} ${resource} (quickbooks-fake emulates customer, invoice, item, taxcode, taxrate, term, companyinfo and query)`);
  if (req.method === 'GET') {
    if (!id) throw qboFaults.unsupportedOperation(`GET ${resource} without an Id (use query)`);
    if (entity === 'Invoice' && realm.deleted.has(id)) throw qboFaults.objectNotFound('Invoice', id);
    // CompanyInfo is addressed by the realm id, though the entity itself carries Id "1".
    if (entity === 'CompanyInfo') {
      if (id !== realm.realmId) throw qboFaults.objectNotFound('CompanyInfo', id);
      return { CompanyInfo: readEntity(realm, 'CompanyInfo', '1') };
    }
    return { [entity]: readEntity(realm, entity, id) };
  }
  if (req.method !== 'POST' || id !== undefined) throw qboFaults.unsupportedOperation(`${req.method} ${req.path}`);
  const body = parseJsonBody(req);
  const operation = req.query.get('operation');
  if (entity === 'Customer') {
    if (operation) throw qboFaults.unsupportedOperation(`Customer operation=${operation} (make customers inactive with Active=false)`);
    return { Customer: structuredClone(body['Id'] === undefined ? createCustomer(realm, body) : updateCustomer(realm, body)) };
  }
  if (entity === 'Invoice') {
    if (operation === 'delete') return { Invoice: deleteInvoice(realm, body) };
    if (operation === 'void') return { Invoice: structuredClone(voidInvoice(realm, body)) };
    if (operation && operation !== 'update') throw qboFaults.unsupportedOperation(`Invoice operation=${operation}`);
    return { Invoice: structuredClone(body['Id'] === undefined ? createInvoice(realm, body) : updateInvoice(realm, body)) };
  }
  if (entity === 'Payment') {
    if (operation || body['Id'] !== undefined) throw qboFaults.unsupportedOperation(`Payment ${operation ?? 'update'} (quickbooks-fake creates payments only)`);
    return { Payment: structuredClone(createPayment(realm, body)) };
  }
  throw qboFaults.unsupportedOperation(`POST ${resource} (read-only in quickbooks-fake)`);
}

export function handleApi(deps: ApiDeps, req: FakeRequest, realmId: string, rest: string[]): FakeResponse {
  const tid = intuitTid();
  const auth = deps.oauth.checkBearer(req);
  if (!auth.ok) return gatewayFault(401, auth.detail, deps.now(), tid);
  const realm = deps.realm(realmId);
  if (auth.realmId !== realmId || !realm) return gatewayFault(403, `The token is not authorized for company ${realmId}`, deps.now(), tid);
  if (!auth.scopes.includes('com.intuit.quickbooks.accounting')) {
    return gatewayFault(403, 'The token does not include the com.intuit.quickbooks.accounting scope', deps.now(), tid);
  }
  const requestId = req.query.get('requestid');
  if (requestId !== null) {
    const stored = realm.requestIds.get(requestId);
    // Same requestid in the same company: the original response, with no new side effect.
    if (stored) return { ...stored, headers: { ...stored.headers, intuit_tid: tid }, replayed: true };
  }
  let response: FakeResponse;
  try {
    response = json(200, { ...execute(deps, req, realm, rest), time: realm.timestamp(deps.now(), true) }, { intuit_tid: tid });
  } catch (err) {
    if (!(err instanceof QboFault)) throw err;
    response = json(err.status, err.body(realm.timestamp(deps.now(), true)), { intuit_tid: tid });
  }
  if (requestId !== null) realm.requestIds.set(requestId, response);
  return response;
}

export function qboFaultResponse(status: number, req: FakeRequest, time: string): FakeResponse {
  const tid = intuitTid();
  if (!req.path.startsWith('/v3/')) {
    // The OAuth endpoints speak RFC 6749 JSON errors.
    const error = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'temporarily_unavailable' : 'invalid_request';
    return json(status, { error }, { intuit_tid: tid });
  }
  if (status === 429) {
    return json(status, { Fault: { Error: [{ Message: 'message=ThrottleExceeded; errorCode=003001; statusCode=429', Detail: 'The request limit was reached.', code: '3001' }], type: 'SERVICE' }, time }, { intuit_tid: tid });
  }
  if (status === 401 || status === 403) return gatewayFault(status, 'Injected fault', Date.now(), tid);
  if (status >= 500) {
    return json(status, { Fault: { Error: [{ Message: 'An application error has occurred while processing your request', Detail: `System Failure Error: injected ${status}`, code: '10000' }], type: 'SystemFault' }, time }, { intuit_tid: tid });
  }
  return json(status, { Fault: { Error: [{ Message: 'A business validation error has occurred while processing your request', Detail: `Business Validation Error: injected ${status}`, code: '6000', element: '' }], type: 'ValidationFault' }, time }, { intuit_tid: tid });
}

/** QBO answers at most this many changed objects per /cdc request, and looks back at most 30 days. */
const CDC_MAX_RESULTS = 1000;
const CDC_LOOKBACK_MS = 30 * 86_400_000;
const CDC_ENTITIES: Record<string, EntityName> = { customer: 'Customer', invoice: 'Invoice', payment: 'Payment' };

/**
 * `GET /cdc?entities=Invoice,Payment&changedSince=<date-time>`: every object of those entities
 * whose MetaData.LastUpdatedTime is at or after changedSince (at most 30 days back), oldest
 * change first, at most `max` in all; deleted invoices come back as `{Id, status: 'Deleted'}`.
 */
function changeDataCapture(realm: QboRealm, req: FakeRequest, now: number, max: number): Record<string, unknown> {
  const entities = req.query.get('entities');
  const since = req.query.get('changedSince');
  if (!entities) throw qboFaults.requiredParam('entities');
  if (!since) throw qboFaults.requiredParam('changedSince');
  const sinceMs = Date.parse(since);
  if (!Number.isFinite(sinceMs) || !/^\d{4}-\d{2}-\d{2}/.test(since)) throw qboFaults.invalidValue('changedSince', since);
  if (sinceMs < now - CDC_LOOKBACK_MS) throw qboFaults.businessValidation('changedSince may be at most 30 days in the past');
  const names = entities.split(',').map((name) => name.trim());
  const changed: Array<{ name: EntityName; at: number; entity: QboEntity }> = [];
  for (const raw of names) {
    const name = CDC_ENTITIES[raw.toLowerCase()];
    if (!name) throw qboFaults.invalidValue('entities', raw);
    for (const entity of realm.table(name).values()) {
      const at = Date.parse(String((entity['MetaData'] as Record<string, unknown>)['LastUpdatedTime']));
      if (at >= sinceMs) changed.push({ name, at, entity });
    }
  }
  changed.sort((a, b) => a.at - b.at || Number(a.entity['Id']) - Number(b.entity['Id']));
  const kept = changed.slice(0, max);
  const response = names.map((raw) => {
    const name = CDC_ENTITIES[raw.toLowerCase()]!;
    const list = kept.filter((c) => c.name === name).map((c) => (realm.deleted.has(String(c.entity['Id'])) && name === 'Invoice' ? { Id: c.entity['Id'], status: 'Deleted', MetaData: c.entity['MetaData'] } : structuredClone(c.entity)));
    return { [name]: list, startPosition: 1, maxResults: list.length, totalCount: list.length };
  });
  return { CDCResponse: [{ QueryResponse: response }] };
}
