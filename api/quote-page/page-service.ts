import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { inTenant } from '../../db/tenant-scope';
import { organizationLogo, tenantStanding } from '../../db/organizations';
import { DEFAULT_QUOTE_TERMS } from '../../domain/organizations/settings';
import { isSuspended } from '../../domain/organizations/suspension';
import { acceptanceAssignments, declineAssignments, officeRecipients, pageLinkByHash, pageLinkTenant, type PageLinkRow } from '../../db/quotes/page-links';
import { transitionQuote } from '../../db/quotes/quotes';
import {
  AcceptForm,
  customerFigures,
  decisionOf,
  DeclineForm,
  linkState,
  type CustomerFigures,
  type Decision,
} from '../../domain/quotes/customer-page';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import type { Mailer } from '../../infra/email/mailer';
import { composeOfficeDecision } from '../../infra/email/quote-mail';
import { approveInTenant } from '../quotes/approval';
import { csrfMatches, csrfToken, isPageTokenShape, pageTokenHash } from './tokens';

/** The quote as its page shows it: no cost, no margin, nothing the office alone reads. */
export interface OpenQuote {
  contractor: string;
  /** D24: the contractor's details from its workspace settings; null where none is set. */
  contractorAddress: string | null;
  contractorPhone: string | null;
  /** Whether the workspace has a logo (served at `/q/<token>/logo`, embedded in the PDF). */
  logo: boolean;
  quoteNumber: number;
  customerName: string | null;
  figures: CustomerFigures;
  /** When the quote was sent to the customer (its creation, for a quote never sent). */
  issuedAt: Date;
  validUntil: Date;
  terms: string;
}

export interface FormProblem {
  form: 'accept' | 'decline';
  field: 'name' | 'reason';
  message: string;
  value: string;
}

/** What a request to the page comes to; api/quote-page/page.ts renders each. */
export type PageView =
  | { kind: 'open'; status: 200 | 422; quote: OpenQuote; csrf: string; problem?: FormProblem }
  /** `quote`: on a GET of a quote the customer decided, the quote itself, read-only, with its PDF. */
  | { kind: 'decided'; status: 200 | 409; contractor: string; quoteNumber: number; decision: Decision; justNow: boolean; quote?: OpenQuote }
  /** One neutral status for every link that opens nothing (docs/security.md). */
  | { kind: 'gone'; status: 404 }
  | { kind: 'refused'; status: 403 }
  /** D22: the contractor's workspace is suspended; the link opens again when it is resumed. */
  | { kind: 'unavailable'; status: 403 };

export interface ClientFacts {
  address: string;
  userAgent: string | null;
}

interface Located {
  organizationId: string;
  tokenHash: Buffer;
  row: PageLinkRow;
  suspended: boolean;
}

const decidedByCustomer = (row: PageLinkRow) => row.acceptance_at !== null || row.customer_declined_at !== null;
const decisionFrom = (row: PageLinkRow) =>
  decisionOf({
    status: row.status,
    acceptance: row.acceptance_name && row.acceptance_at ? { name: row.acceptance_name, at: new Date(row.acceptance_at) } : null,
    declinedByCustomerAt: row.customer_declined_at ? new Date(row.customer_declined_at) : null,
  });

/** A post on a quote already decided: the short page saying so (409), not the quote again. */
const alreadyDecided = (view: Extract<PageView, { kind: 'decided' }>): PageView => ({
  kind: 'decided',
  status: 409,
  contractor: view.contractor,
  quoteNumber: view.quoteNumber,
  decision: view.decision,
  justNow: false,
});

/**
 * D24: the customer's page of a quote. A link is found by its hash through the one door that names
 * its tenant; everything after runs in that tenant's transaction under row-level security. The
 * accept is the same approval as `POST /approve` (api/quotes/approval.ts), as the user who sent the
 * quote; a decline is D3's reject with the customer's reason.
 */
export class QuotePageService {
  constructor(
    private readonly em: EntityManager,
    private readonly deps: {
      formSecret: string;
      events?: EventDispatcher | undefined;
      mailer?: Mailer | undefined;
      publicBaseUrl: string;
      logger: Logger;
      now?: () => Date;
    },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private async locate(token: string): Promise<Located | undefined> {
    if (!isPageTokenShape(token)) return undefined;
    const tokenHash = pageTokenHash(token);
    const organizationId = await pageLinkTenant(this.em, tokenHash);
    if (!organizationId) return undefined;
    const { row, standing } = await inTenant(this.em, organizationId, async (tx) => ({ row: await pageLinkByHash(tx, tokenHash), standing: await tenantStanding(tx) }));
    return row ? { organizationId, tokenHash, row, suspended: isSuspended(standing) } : undefined;
  }

  private openQuote(row: PageLinkRow): OpenQuote {
    return {
      contractor: row.contractor_name,
      contractorAddress: row.business_address,
      contractorPhone: row.business_phone,
      logo: row.has_logo,
      quoteNumber: row.quote_number,
      customerName: row.customer_name,
      figures: customerFigures(row.calculation.line_items, row.tax_region, row.control_sides ?? []),
      issuedAt: new Date(row.sent_at ?? row.created_at),
      validUntil: new Date(row.expires_at),
      terms: row.quote_terms ?? DEFAULT_QUOTE_TERMS,
    };
  }

  /** What GET shows: the quote while its link is open, the customer's own decision after, else the neutral page. */
  private viewOf(found: Located | undefined, now: Date): PageView {
    if (!found) return { kind: 'gone', status: 404 };
    // D22: nothing of a suspended workspace's quote is shown, and nothing can be decided on it.
    if (found.suspended) return { kind: 'unavailable', status: 403 };
    const { row } = found;
    const state = linkState({ expiresAt: new Date(row.expires_at), voidedAt: row.voided_at }, { status: row.status, decidedByCustomer: decidedByCustomer(row) }, now);
    if (state === 'open') return { kind: 'open', status: 200, quote: this.openQuote(row), csrf: csrfToken(this.deps.formSecret, found.tokenHash) };
    const decision = state === 'decided' ? decisionFrom(row) : null;
    // Unknown, voided, expired, decided by the office, or past its keeping: one neutral answer.
    if (!decision) return { kind: 'gone', status: 404 };
    return { kind: 'decided', status: 200, contractor: row.contractor_name, quoteNumber: row.quote_number, decision, justNow: false, quote: this.openQuote(row) };
  }

  async view(token: string): Promise<PageView> {
    return this.viewOf(await this.locate(token), this.now());
  }

  /**
   * The quote for its PDF, with the customer's decision once they made it (the copy they keep until
   * the quote's validity plus 90 days), or the refusal the page would show.
   */
  async pdfQuote(token: string): Promise<{ quote: OpenQuote; decision: Decision | null; organizationId: string } | { view: PageView }> {
    const found = await this.locate(token);
    const view = this.viewOf(found, this.now());
    if (view.kind === 'open') return { quote: view.quote, decision: null, organizationId: found!.organizationId };
    if (view.kind === 'decided' && view.quote) return { quote: view.quote, decision: view.decision, organizationId: found!.organizationId };
    return { view };
  }

  /** D24: the contractor's logo, for a link that shows its quote (open or decided); the neutral page otherwise. */
  async logo(token: string): Promise<{ contentType: string; bytes: Buffer } | { view: PageView }> {
    const found = await this.locate(token);
    const view = this.viewOf(found, this.now());
    if (view.kind !== 'open' && !(view.kind === 'decided' && view.quote)) return { view };
    const logo = await inTenant(this.em, found!.organizationId, (tx) => organizationLogo(tx));
    return logo ? { contentType: logo.content_type, bytes: logo.bytes } : { view: { kind: 'gone', status: 404 } };
  }

  /** The logo's bytes for the PDF of a quote of this tenant. */
  async logoBytes(organizationId: string): Promise<Buffer | undefined> {
    return (await inTenant(this.em, organizationId, (tx) => organizationLogo(tx)))?.bytes;
  }

  async accept(token: string, fields: unknown, client: ClientFacts): Promise<PageView> {
    return this.decide(token, fields, client, 'accept');
  }

  async decline(token: string, fields: unknown, client: ClientFacts): Promise<PageView> {
    return this.decide(token, fields, client, 'decline');
  }

  private async decide(token: string, fields: unknown, client: ClientFacts, action: 'accept' | 'decline'): Promise<PageView> {
    const now = this.now();
    const found = await this.locate(token);
    if (!found) return { kind: 'gone', status: 404 };
    if (found.suspended) return { kind: 'unavailable', status: 403 };
    const csrf = typeof (fields as { csrf?: unknown } | null)?.csrf === 'string' ? (fields as { csrf: string }).csrf : '';
    if (!csrfMatches(this.deps.formSecret, found.tokenHash, csrf)) return { kind: 'refused', status: 403 };
    const before = this.viewOf(found, now);
    // A second decision, or one after the office decided, changes nothing and says what happened.
    if (before.kind === 'decided') return alreadyDecided(before);
    if (before.kind !== 'open') return this.afterTheOffice(found.row, now) ?? before;

    const parsed = action === 'accept' ? AcceptForm.safeParse(fields) : DeclineForm.safeParse(fields);
    if (!parsed.success) {
      const issue = parsed.error.issues.find((i) => i.path[0] === 'name' || i.path[0] === 'reason') ?? parsed.error.issues[0]!;
      const field = action === 'accept' ? 'name' : 'reason';
      const raw = (fields as Record<string, unknown> | null)?.[field];
      return { ...before, status: 422, problem: { form: action, field, message: issue.message, value: typeof raw === 'string' ? raw.slice(0, 2000) : '' } };
    }

    const { organizationId, tokenHash } = found;
    const outcome = await inTenant(this.em, organizationId, async (tx) => {
      // The link row is locked: a re-send that voids it waits for this decision, or wins before it.
      const row = await pageLinkByHash(tx, tokenHash, { lock: true });
      if (!row || isSuspended(await tenantStanding(tx))) return { moved: false as const };
      const state = linkState({ expiresAt: new Date(row.expires_at), voidedAt: row.voided_at }, { status: row.status, decidedByCustomer: decidedByCustomer(row) }, now);
      if (state !== 'open') return { moved: false as const };
      if (action === 'accept') {
        const form = parsed.data as AcceptForm;
        const approved = await approveInTenant(tx, {
          organizationId,
          quoteId: row.quote_id,
          // D24: the customer's acceptance approves as the user who sent the quote.
          userId: row.sent_by_user_id ?? row.created_by_user_id!,
          also: acceptanceAssignments({ name: form.name, address: client.address, userAgent: client.userAgent }),
        });
        return approved.moved ? { moved: true as const, row, event: approved.event, typedName: form.name, reason: null } : { moved: false as const };
      }
      const form = parsed.data as DeclineForm;
      const decline = declineAssignments(form.reason);
      const rejected = await transitionQuote(tx, row.quote_id, 'reject', decline.sql, decline.params);
      return rejected.moved ? { moved: true as const, row, event: undefined, typedName: undefined, reason: form.reason } : { moved: false as const };
    });

    if (!outcome.moved) {
      // Another request decided first (a concurrent accept, the office, a re-send): say what is now so.
      const again = await this.locate(token);
      const after = this.viewOf(again, now);
      if (after.kind === 'decided') return alreadyDecided(after);
      return (again && this.afterTheOffice(again.row, now)) ?? after;
    }
    if (outcome.event) await this.deps.events?.tryDispatch(outcome.event);
    await this.tellOffice(organizationId, outcome.row, action === 'accept' ? 'accepted' : 'declined', outcome.typedName, outcome.reason);
    const decision: Decision =
      action === 'accept' ? { kind: 'accepted_by_customer', name: outcome.typedName!, at: now } : { kind: 'declined_by_customer', at: now };
    return { kind: 'decided', status: 200, contractor: outcome.row.contractor_name, quoteNumber: outcome.row.quote_number, decision, justNow: true };
  }

  /**
   * A post on a link that was still good (not voided, not expired) to a quote the office approved
   * or rejected meanwhile: nothing changes, and the holder of the link, who had the page, is told
   * it was decided. A GET of the same link shows the neutral page.
   */
  private afterTheOffice(row: PageLinkRow, now: Date): PageView | undefined {
    if (row.voided_at !== null || now.getTime() >= new Date(row.expires_at).getTime()) return undefined;
    const decision = decisionFrom(row);
    if (decision?.kind !== 'decided_by_office' || decision.status === 'EXPIRED') return undefined;
    return { kind: 'decided', status: 409, contractor: row.contractor_name, quoteNumber: row.quote_number, decision, justNow: false };
  }

  /** D24: the office hears of the decision (the quote's creator, else the tenant's ADMINs). Mail trouble is logged, never the customer's problem. */
  private async tellOffice(organizationId: string, row: PageLinkRow, decision: 'accepted' | 'declined', typedName: string | undefined, reason: string | null): Promise<void> {
    const { mailer } = this.deps;
    if (!mailer) {
      this.deps.logger.warn({ quote_id: row.quote_id }, `no SMTP_URL: the office is not emailed that a customer ${decision} a quote`);
      return;
    }
    try {
      const recipients = await inTenant(this.em, organizationId, (tx) => officeRecipients(tx, row.quote_id));
      for (const to of recipients) {
        await mailer.send(
          composeOfficeDecision({
            to,
            decision,
            contractor: row.contractor_name,
            quoteNumber: row.quote_number,
            quoteId: row.quote_id,
            customerName: row.customer_name,
            ...(typedName ? { typedName } : {}),
            reason,
            baseUrl: this.deps.publicBaseUrl,
          }),
        );
      }
    } catch (error) {
      this.deps.logger.warn({ err: error, quote_id: row.quote_id }, `the office could not be emailed that a customer ${decision} a quote`);
    }
  }
}
