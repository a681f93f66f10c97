import { z } from 'zod';
import { route, type RouteHost } from '../../http/route';
import { ADMIN_ONLY, OFFICE } from '../../http/roles';
import { auditContext } from '../../http/audit-actor';
import { PROBLEM_CONTENT_TYPE, ProblemSchema } from '../problem';
import { badRequest } from '../../../domain/errors/errors';
import type { PricebookService } from './pricebook-service';
import { CompareQuery, ExportQuery, ImportQuery, ImportResult, PricebookParams, PublishBody, Revision, RevisionPage, RevisionPageQuery, RevisionParams } from './schemas';
import {
  CURRENT_REVISION_EXAMPLE,
  EXPORT_EXAMPLE,
  IMPORT_EXAMPLE_CSV,
  IMPORT_RESULT_EXAMPLE,
  PUBLISHED_REVISION_EXAMPLE,
  PUBLISH_EXAMPLE_BODY,
  REVISION_PAGE_EXAMPLE,
} from './examples';

const problem = (description: string) => ({ description, schema: ProblemSchema, contentType: PROBLEM_CONTENT_TYPE });
const TAGS = ['v1 pricebooks'];

/** D21: the price book as immutable revisions. Reads ADMIN and SALES; publications ADMIN. */
export function pricebookRoutes(host: RouteHost, deps: { pricebooks: PricebookService }): void {
  route(host, {
    method: 'get',
    path: '/v1/pricebooks/:id',
    operationId: 'getPricebook',
    summary: 'The current revision of the price book, whole',
    description: 'The revision that prices a quote made now: settings, every SKU (inactive ones too), labour tiers and products, exact decimals as strings.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    params: PricebookParams,
    responses: { 200: { description: 'The current revision', schema: Revision, example: CURRENT_REVISION_EXAMPLE }, 404: problem('Not this workspace’s price book') },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.pricebooks.current(caller, params.id));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/pricebooks/:id/revisions',
    operationId: 'listPricebookRevisions',
    summary: 'The price book’s revisions, newest first',
    description: 'A scheduled revision (a future `effective_from`) is listed with `current: false` until its instant. Pass `next_cursor` back as `cursor` for the next page.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    params: PricebookParams,
    query: RevisionPageQuery,
    responses: { 200: { description: 'A page of revisions', schema: RevisionPage, example: REVISION_PAGE_EXAMPLE } },
    handler: async ({ res, caller, params, query }) => {
      res.json(await deps.pricebooks.list(caller, params.id, query));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/pricebooks/:id/revisions/:revision',
    operationId: 'getPricebookRevision',
    summary: 'One revision whole, optionally compared to another',
    description: 'With `compare_to=<revision>`, `changes` lists every field that differs from that revision to this one: `{entity, key, field, before, after}`.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    params: RevisionParams,
    query: CompareQuery,
    responses: { 200: { description: 'The revision', schema: Revision, example: PUBLISHED_REVISION_EXAMPLE }, 404: problem('No such revision') },
    handler: async ({ res, caller, params, query }) => {
      res.json(await deps.pricebooks.get(caller, params.id, params.revision, query.compare_to));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/pricebooks/:id/revisions',
    operationId: 'publishPricebookRevision',
    summary: 'Publish a change set as a new revision',
    description:
      'The changes apply, in order, to the newest revision, which must be `base_revision` (409 otherwise: another admin published first). All or nothing: each refused change is reported at its dotted path ' +
      '(`changes.3.sku.unit_cost_cents`). `adjust_costs` rounds as docs/pricing.md states (half away from zero, to the cent). `dry_run: true` answers the revision that would be published, with its `changes`, and writes nothing (200). ' +
      'A future `effective_from` makes the revision current at that instant (quotes priced before it use the revision current then); `pricebook.published` is sent when it becomes current. Records an audit event.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: PricebookParams,
    body: PublishBody,
    bodyExample: PUBLISH_EXAMPLE_BODY,
    responses: {
      201: { description: 'The new revision, with its changes', schema: Revision, example: PUBLISHED_REVISION_EXAMPLE },
      200: { description: 'Dry run: the revision that would be published (`revision` null); nothing written', schema: Revision, example: { ...PUBLISHED_REVISION_EXAMPLE, revision: null } },
      409: problem('`base_revision` is not the newest revision'),
    },
    handler: async ({ req, res, caller, params, body }) => {
      const published = await deps.pricebooks.publish(caller, params.id, body, auditContext(req));
      res.status(body.dry_run ? 200 : 201).json(published);
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/pricebooks/:id/export.csv',
    operationId: 'exportPricebookCsv',
    summary: 'A revision’s SKUs as CSV',
    description:
      'UTF-8 with a BOM, CRLF line ends, RFC 4180 quoting; header `code,component,description,unit,unit_cost_cents,active`. A cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading apostrophe (OWASP CSV injection), which the import reads back.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: OFFICE,
    params: PricebookParams,
    query: ExportQuery,
    responses: { 200: { description: 'The CSV file', schema: z.string(), example: EXPORT_EXAMPLE, contentType: 'text/csv' } },
    handler: async ({ res, caller, params, query }) => {
      const csv = await deps.pricebooks.exportCsv(caller, params.id, query.revision);
      res.status(200).type('text/csv; charset=utf-8').attachment('pricebook.csv').send(Buffer.from(csv, 'utf8'));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/pricebooks/:id/imports',
    operationId: 'importPricebookCsv',
    summary: 'Import SKUs from CSV: validate, or publish one revision',
    description:
      'The body is the CSV file (`text/csv`, UTF-8, BOM and CRLF accepted), with the export’s header. Each row creates or updates the SKU of its code; SKUs not in the file are unchanged. ' +
      '`dry_run` defaults to true: a result per row (`created`, `updated`, `unchanged`, or `refused` with its complaints), nothing written. With `dry_run=false` the whole file is one new revision (201), ' +
      'or nothing when any row is refused (422 with each complaint at `rows.<line>.<column>`). At most 5,000 rows; a missing or extra column, another encoding, or a bare formula cell is refused.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: PricebookParams,
    query: ImportQuery,
    rawBody: { description: 'The CSV file', schema: z.string(), example: IMPORT_EXAMPLE_CSV, contentType: 'text/csv' },
    responses: {
      200: { description: 'Dry run (or a file that changes nothing): a result per row', schema: ImportResult, example: IMPORT_RESULT_EXAMPLE },
      201: { description: 'Published: one revision for the whole file', schema: ImportResult, example: { ...IMPORT_RESULT_EXAMPLE, dry_run: false, revision: PUBLISHED_REVISION_EXAMPLE } },
      409: problem('`base_revision` is not the newest revision'),
      415: problem('The body is not text/csv'),
    },
    handler: async ({ req, res, caller, params, query }) => {
      if (!Buffer.isBuffer(req.body)) throw badRequest('Send the file as the request body with Content-Type: text/csv.');
      const outcome = await deps.pricebooks.import(caller, params.id, req.body, { dryRun: query.dry_run, baseRevision: query.base_revision, effectiveFrom: query.effective_from }, auditContext(req));
      res.status(outcome.status).json(outcome.body);
    },
  });
}
