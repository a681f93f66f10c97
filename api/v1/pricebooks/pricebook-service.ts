import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../../db/tenant-scope';
import {
  currentRevision,
  insertRevision,
  lockPricebook,
  newestRevision,
  publicationInstant,
  revisionByStamp,
  revisionContent,
  revisionPage,
  type RevisionHead,
} from '../../../db/pricebook/pricebook';
import { recordPricebookPublished } from '../../../db/pricebook/announcements';
import { recordAuditEvent } from '../../../db/audit/audit-events';
import { ChangeSetRefused, applyChangeSet, type Change } from '../../../domain/pricebook/change-set';
import { compareRevisions, type FieldChange } from '../../../domain/pricebook/compare';
import { CsvRefused, exportRecords, planImport, type RowResult } from '../../../domain/pricebook/csv-rows';
import type { PricebookContent } from '../../../domain/pricebook/content';
import type { AuditActor } from '../../../domain/audit/audit-entry';
import { conflict, notFound, providerUnavailable, validationFailed } from '../../../domain/errors/errors';
import type { EventEnvelope } from '../../../domain/events/catalogue';
import type { EventDispatcher } from '../../../infra/events/dispatcher';
import type { PricebookWorkflows } from '../../../infra/temporal/pricebook-workflows';
import { formatCsv, parseCsv } from './csv';

interface Caller {
  organizationId: string;
  userId: string;
}

export interface PresentedRevision extends PricebookContent {
  id: string;
  revision: string | null;
  effective_from: string;
  current: boolean;
  changes?: FieldChange[];
}

/** A refused effective_from more than this far in the past (a clock a little behind is "now"). */
const PAST_TOLERANCE_MS = 60_000;

/**
 * D21: reading, publishing, importing and exporting the price book. Routes validate and call;
 * the rules are domain/pricebook/, the storage db/pricebook/. Every publication is one
 * transaction: the revision, its audit event (D22) and, when it is current at once, its
 * `pricebook.published`; a future one starts its announcing timer before the commit.
 */
export class PricebookService {
  constructor(
    private readonly em: EntityManager,
    private readonly deps: { events?: EventDispatcher | undefined; workflows?: PricebookWorkflows | undefined },
  ) {}

  private own(caller: Caller, id: string): void {
    if (id !== caller.organizationId) throw notFound('No such price book in this workspace (GET /v1/pricebooks).');
  }

  private async present(tx: EntityManager, organizationId: string, head: RevisionHead, content?: PricebookContent): Promise<PresentedRevision> {
    const current = await currentRevision(tx);
    return { id: organizationId, revision: head.revision, effective_from: head.effectiveFrom, current: current?.id === head.id, ...(content ?? (await revisionContent(tx, head))) };
  }

  current(caller: Caller, id: string): Promise<PresentedRevision> {
    this.own(caller, id);
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const head = await currentRevision(tx);
      if (!head) throw notFound('This workspace has no price book revision yet.');
      return this.present(tx, caller.organizationId, head);
    });
  }

  list(caller: Caller, id: string, page: { limit: number; cursor?: string | undefined }) {
    this.own(caller, id);
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const found = await revisionPage(tx, page);
      if (found === 'bad_cursor') throw validationFailed({ cursor: 'Unknown cursor: pass a next_cursor from a previous page' });
      const current = await currentRevision(tx);
      return {
        data: found.data.map((h) => ({ revision: h.revision, effective_from: h.effectiveFrom, current: h.id === current?.id, published_by_user_id: h.publishedByUserId })),
        next_cursor: found.next_cursor,
        // Every /v1/ list answers has_more beside next_cursor (docs/conventions.md).
        has_more: found.next_cursor !== null,
      };
    });
  }

  get(caller: Caller, id: string, revision: string, compareTo?: string): Promise<PresentedRevision> {
    this.own(caller, id);
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const head = await revisionByStamp(tx, revision);
      if (!head) throw notFound(`No revision ${revision} in this price book.`);
      const presented = await this.present(tx, caller.organizationId, head);
      if (compareTo === undefined) return presented;
      const other = await revisionByStamp(tx, compareTo);
      if (!other) throw validationFailed({ compare_to: `No revision ${compareTo} in this price book` });
      return { ...presented, changes: compareRevisions(await revisionContent(tx, other), presented) };
    });
  }

  /** POST /revisions: the change set applied to the newest revision (409 when it is not `base_revision`). */
  async publish(
    caller: Caller,
    id: string,
    body: { base_revision: string; changes: Change[]; effective_from?: string | undefined; dry_run: boolean },
    audit: { actor: AuditActor; requestId: string },
  ): Promise<PresentedRevision> {
    this.own(caller, id);
    const { presented, event } = await this.inPublication(caller, body.base_revision, body.effective_from, (base) => {
      try {
        return applyChangeSet(base, body.changes);
      } catch (error) {
        if (error instanceof ChangeSetRefused) throw validationFailed(error.complaints);
        throw error;
      }
    }, body.dry_run, audit);
    if (event) await this.deps.events?.tryDispatch(event);
    return presented;
  }

  /** POST /imports: a result per row, and one revision for the whole file or nothing. */
  async import(
    caller: Caller,
    id: string,
    bytes: Buffer,
    options: { dryRun: boolean; baseRevision?: string | undefined; effectiveFrom?: string | undefined },
    audit: { actor: AuditActor; requestId: string },
  ): Promise<{ status: 200 | 201; body: { dry_run: boolean; summary: Record<string, number>; results: RowResult[]; revision: PresentedRevision | null } }> {
    this.own(caller, id);
    let records: string[][];
    try {
      records = parseCsv(bytes);
    } catch (error) {
      if (error instanceof CsvRefused) throw validationFailed(error.complaints);
      throw error;
    }
    let results: RowResult[] = [];
    let nothingToPublish = false;
    const plan = (base: PricebookContent) => {
      let planned;
      try {
        planned = planImport(base, records);
      } catch (error) {
        if (error instanceof CsvRefused) throw validationFailed(error.complaints);
        throw error;
      }
      results = planned.results;
      if (planned.refused || !planned.content) {
        nothingToPublish = !planned.refused;
        return null;
      }
      return planned.content;
    };
    const summarise = () => ({
      rows: results.length,
      created: results.filter((r) => r.result === 'created').length,
      updated: results.filter((r) => r.result === 'updated').length,
      unchanged: results.filter((r) => r.result === 'unchanged').length,
      refused: results.filter((r) => r.result === 'refused').length,
    });
    const baseRevision = options.baseRevision;
    const outcome = await this.inPublication(caller, baseRevision ?? null, options.effectiveFrom, plan, options.dryRun, audit);
    const refused = results.filter((r) => r.result === 'refused');
    if (!options.dryRun && refused.length > 0) {
      const complaints: Record<string, string> = {};
      for (const row of refused) for (const [column, why] of Object.entries(row.errors ?? {})) complaints[`rows.${row.row}.${column}`] = why;
      throw validationFailed(Object.fromEntries(Object.entries(complaints).slice(0, 50)), Object.keys(complaints).length);
    }
    if (outcome.event) await this.deps.events?.tryDispatch(outcome.event);
    const revision = nothingToPublish || refused.length > 0 ? null : outcome.presented;
    return { status: options.dryRun || !revision ? 200 : 201, body: { dry_run: options.dryRun, summary: summarise(), results, revision } };
  }

  /** GET export.csv: the revision's SKUs, formula cells escaped. */
  exportCsv(caller: Caller, id: string, revision?: string): Promise<string> {
    this.own(caller, id);
    return inTenant(this.em, caller.organizationId, async (tx) => {
      const head = revision === undefined ? await currentRevision(tx) : await revisionByStamp(tx, revision);
      if (!head) throw notFound(revision === undefined ? 'This workspace has no price book revision yet.' : `No revision ${revision} in this price book.`);
      return formatCsv(exportRecords(await revisionContent(tx, head)));
    });
  }

  /**
   * One publication: lock the book, check the base, build the new content, then write it (the
   * revision, the audit event and the announcement or its timer), or on a dry run nothing.
   * `build` answering null publishes nothing.
   */
  private async inPublication(
    caller: Caller,
    baseRevision: string | null,
    effectiveFromText: string | undefined,
    build: (base: PricebookContent) => PricebookContent | null,
    dryRun: boolean,
    audit: { actor: AuditActor; requestId: string },
  ): Promise<{ presented: PresentedRevision; event: EventEnvelope | null }> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      await lockPricebook(tx, caller.organizationId);
      const newest = await newestRevision(tx);
      if (!newest) throw notFound('This workspace has no price book revision yet.');
      if (baseRevision !== null && new Date(baseRevision).toISOString() !== newest.revision) {
        throw conflict(`base_revision ${baseRevision} is not the newest revision of this price book (${newest.revision}): another change was published first. Read it, and send your changes against it.`);
      }
      // After the lock: a publication that waited behind another is checked against the instant
      // it publishes at, not its transaction's start (which is before the other's revision).
      const now = await publicationInstant(tx);
      let effectiveFrom: Date | null = null;
      if (effectiveFromText !== undefined) {
        const at = new Date(effectiveFromText);
        if (at.getTime() < now.getTime() - PAST_TOLERANCE_MS) throw validationFailed({ effective_from: 'Must not be in the past: a revision never changes what quotes were priced on' });
        if (at.getTime() > now.getTime()) effectiveFrom = at;
      }
      if (new Date(newest.effectiveFrom).getTime() > (effectiveFrom ?? now).getTime()) {
        throw validationFailed({ effective_from: `Must not be before ${newest.effectiveFrom}, when the newest revision becomes current` });
      }
      const base = await revisionContent(tx, newest);
      const content = build(base);
      const basePresented = await this.present(tx, caller.organizationId, newest, base);
      if (!content) return { presented: { ...basePresented, revision: null, changes: [] }, event: null };
      const changes = compareRevisions(base, content);
      if (changes.length === 0) throw validationFailed({ changes: 'The change set changes nothing: every value is already as given' });
      if (dryRun) {
        return { presented: { id: caller.organizationId, revision: null, effective_from: (effectiveFrom ?? now).toISOString(), current: false, ...content, changes }, event: null };
      }
      if (effectiveFrom && !this.deps.workflows) throw providerUnavailable('Scheduling a future revision needs the workflow service, which is not configured.');
      const head = await insertRevision(tx, caller.organizationId, { content, effectiveFrom, publishedByUserId: caller.userId, basedOn: newest });
      await recordAuditEvent(tx, caller.organizationId, {
        actor: audit.actor,
        action: effectiveFrom ? 'pricebook.scheduled' : 'pricebook.published',
        entityType: 'pricebook',
        entityId: caller.organizationId,
        changes: [
          { field: 'revision', before: newest.revision, after: head.revision },
          { field: 'effective_from', before: newest.effectiveFrom, after: head.effectiveFrom },
          ...changes.map((c) => auditChange(c)),
        ],
        requestId: audit.requestId,
      });
      let event: EventEnvelope | null = null;
      if (effectiveFrom) {
        // Before the commit: a timer that cannot be started publishes nothing (503), and the
        // client may try again with the same base.
        await this.deps.workflows!.schedule({ organizationId: caller.organizationId, revisionId: head.id, effectiveFrom: head.effectiveFrom }).catch((error: unknown) => {
          throw providerUnavailable(`The workflow service could not schedule the revision, so nothing was published: ${error instanceof Error ? error.message : String(error)}`);
        });
      }
      else event = await recordPricebookPublished(tx, caller.organizationId, head);
      return { presented: { id: caller.organizationId, revision: head.revision, effective_from: head.effectiveFrom, current: !effectiveFrom, ...content, changes }, event };
    });
  }
}

/**
 * A field-level change as the audit log keeps it (D22): the field names the entity and its field
 * (`sku.unit_cost_cents`), never a tenant's code (a code is data, and may contain any word); the
 * code travels with the values.
 */
function auditChange(change: FieldChange): { field: string; before: unknown; after: unknown } {
  if (change.entity === 'setting') return { field: `setting.${change.key}`, before: change.before, after: change.after };
  return { field: `${change.entity}.${change.field}`, before: { key: change.key, value: change.before }, after: { key: change.key, value: change.after } };
}
