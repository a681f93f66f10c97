import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import type { PlanResult } from '../../domain/routing/plan';

/**
 * The typed boundary between the code that starts workflows (api/, worker/) and the workflows
 * themselves. Each workflow's name, input, result, function type and id live here, one level
 * below workflows/: a workflow implements its function type (`import type`, checked by the
 * compiler), and every client starts it through that type, so a changed argument fails to
 * compile on both sides. Nothing here does I/O; workflows/index.ts must export exactly these names
 * (test/unit/workflow-contracts.test.ts).
 */

/**
 * Shortens every retry interval and timer for tests; 1 (absent) in production. Durations are
 * configurable rather than skipped: these machines cannot run the time-skipping test server.
 */
export interface Timing {
  retryScale?: number;
}

export const WORKFLOW_TYPES = {
  roundTrip: 'roundTrip',
  quoteApproval: 'quoteApproval',
  quoteInvoice: 'quoteInvoice',
  expireQuotes: 'expireQuotes',
  integrationTokenRefresh: 'integrationTokenRefresh',
  deliverEndpointWebhooks: 'deliverEndpointWebhooks',
  changeOrderInvoice: 'changeOrderInvoice',
  jobCompletionInvoice: 'jobCompletionInvoice',
  providerSync: 'providerSync',
  pricebookPublication: 'pricebookPublication',
  tenantProvisioning: 'tenantProvisioning',
  routePlan: 'routePlan',
} as const;

// ---- roundTrip: the smallest workflow (start-up probe, benchmark baseline) ----
export interface RoundTripInput {
  sentAt: string;
}
export type RoundTripWorkflow = (input: RoundTripInput) => Promise<RoundTripInput>;

// ---- quoteApproval / quoteInvoice: sections 3.1 and 3.4, D7 ----
export type LegProvider = 'PAYMENTS' | 'ACCOUNTING' | 'CRM';
export interface QuoteApprovalInput {
  organizationId: string;
  quoteId: string;
  timing?: Timing;
}
export type LegOutcome = { provider: LegProvider; status: 'SUCCEEDED' | 'FAILED' | 'SKIPPED'; externalId?: string | null; error?: string };
export type QuoteApprovalWorkflow = (input: QuoteApprovalInput) => Promise<{ legs: LegOutcome[] }>;
export type QuoteInvoiceWorkflow = (input: QuoteApprovalInput) => Promise<LegOutcome>;

/**
 * D19: a failed leg does not end its approval; the workflow waits (up to 30 days) for this update,
 * which runs that leg again with the same idempotency keys and answers its outcome. A leg that
 * already succeeded (or was skipped) answers that and calls nothing.
 */
export interface RetryLegInput {
  provider: LegProvider;
}
export type RetryLegUpdate = UpdateDefinition<LegOutcome, [RetryLegInput], 'retryLeg'>;
export const RETRY_LEG: RetryLegUpdate['name'] = 'retryLeg';
/** What the approval is doing now (also its `ApprovalState` search attribute once a leg failed). */
export type ApprovalState = 'running' | 'awaiting_repair' | 'completed' | 'repair_window_closed';
export interface ApprovalProgress {
  state: ApprovalState;
  legs: LegOutcome[];
}
export type ApprovalProgressQuery = QueryDefinition<ApprovalProgress, [], 'approvalProgress'>;
export const APPROVAL_PROGRESS: ApprovalProgressQuery['name'] = 'approvalProgress';

/** One approval fan-out per quote, ever. */
export const approvalWorkflowId = (quoteId: string) => `quote-approval-${quoteId}`;
/** The payments leg alone; one id per quote (a request while a run is going joins it). */
export const invoiceWorkflowId = (quoteId: string) => `quote-invoice-${quoteId}`;

// ---- expireQuotes: D3's scheduled job ----
export type ExpireQuotesWorkflow = (input?: Record<string, never>) => Promise<{ expired: number }>;
export const QUOTE_EXPIRY_SCHEDULE_ID = 'quote-expiry';

// ---- integrationTokenRefresh: one per connection ----
export type RefreshedProvider = 'ACCOUNTING' | 'CRM';
export interface TokenRefreshInput {
  organizationId: string;
  provider: RefreshedProvider;
  timing?: Timing;
  /** Rounds (plan, wait, refresh) per run before continuing as new; tests lower it. */
  roundsPerRun?: number;
}
export interface ConnectionChange {
  reason: 'connected' | 'disconnected';
}
export type TokenRefreshWorkflow = (input: TokenRefreshInput) => Promise<{ ended: 'DISCONNECTED' | 'EXPIRED' | 'MISSING' }>;
/**
 * Sent when the connection changes (consent completed, disconnected). It only wakes the workflow:
 * the database says what the connection now is, so a lost or late signal is harmless. The name is
 * part of the type, so the workflow's `defineSignal` and the clients must agree on it.
 */
export type ConnectionChangedSignal = SignalDefinition<[ConnectionChange], 'connectionChanged'>;
export const CONNECTION_CHANGED: ConnectionChangedSignal['name'] = 'connectionChanged';
export const integrationRefreshWorkflowId = (ref: { organizationId: string; provider: RefreshedProvider }) =>
  `integration-refresh-${ref.organizationId}-${ref.provider.toLowerCase()}`;

// ---- deliverEndpointWebhooks: section 6.3, D6 (docs/webhook-delivery.md) ----
/** The circuit breaker of one endpoint (workflows/webhook-breaker.ts has its table of transitions). */
export type BreakerStateName = 'closed' | 'open' | 'half_open';
export interface BreakerState {
  state: BreakerStateName;
  /** Retryable failures in a row with nothing delivered (closed). */
  failures: number;
  /** Workflow time the breaker opened (open). */
  openedAt: number | null;
  /** How long it stays open before a probe; doubles after a failed probe, up to the limit. */
  coolDownMs: number;
}
export interface EndpointDeliveryLimits {
  /** Deliveries claimed per batch activity. */
  batchSize: number;
  /** Requests to the endpoint in flight at once (the endpoint's limit). */
  concurrency: number;
  /** Batches (and waits) per run before continuing as new. */
  batchesPerRun: number;
  /** How long one batch activity goes on with further rounds while every attempt delivers and work is due. */
  drainMs: number;
  /** Within it, how long the batch keeps looking for new work before the endpoint goes idle (a wake-up costs a round trip). */
  lingerMs: number;
  /** Retryable failures in a row, with nothing delivered, that open the breaker. */
  failuresToOpen: number;
  /** First cool-down of an open breaker, and its ceiling after failed probes (scaled by retryScale). */
  coolDownMs: number;
  maxCoolDownMs: number;
  /** The longest wait without a look at the database (a wake-up lost in a crash costs at most this). */
  idleCheckMs: number;
}
/** The schedule's decision after a retryable failure (domain/webhooks/schedules.ts), recorded by the next batch. */
export type RetryDecision = { deliveryId: string; attempt: number; delayMs: number } | { deliveryId: string; attempt: number; exhausted: true };
export interface EndpointDeliveryInput {
  organizationId: string;
  endpointId: string;
  /** D13: the endpoint's format (fixed at registration): it sizes the batch activity's timeout. */
  format: 'core' | 'field' | 'events';
  timing?: Timing;
  limits?: Partial<EndpointDeliveryLimits>;
  /** Set by continue-as-new: the breaker and the decisions not yet recorded. */
  carried?: { breaker: BreakerState; decisions: RetryDecision[] };
}
export type EndpointDeliveryWorkflow = (input: EndpointDeliveryInput) => Promise<{ ended: 'endpoint_deleted' }>;
/** Wakes the endpoint's workflow: deliveries are due. It only wakes; the database says what is due. */
export type DeliveriesDueSignal = SignalDefinition<[], 'deliveriesDue'>;
export const DELIVERIES_DUE: DeliveriesDueSignal['name'] = 'deliveriesDue';
/** What the workflow is doing, for an operator and the tests. */
export interface EndpointDeliveryProgress {
  breaker: BreakerState;
  batches: number;
  delivered: number;
}
export type EndpointDeliveryProgressQuery = QueryDefinition<EndpointDeliveryProgress, [], 'endpointDeliveryProgress'>;
export const ENDPOINT_DELIVERY_PROGRESS: EndpointDeliveryProgressQuery['name'] = 'endpointDeliveryProgress';
/** One delivery workflow per endpoint, ever running while the endpoint exists. */
export const endpointDeliveryWorkflowId = (endpointId: string) => `webhook-endpoint-${endpointId}`;

// ---- changeOrderInvoice: D12 ----
export interface ChangeOrderInvoiceInput {
  organizationId: string;
  changeOrderId: string;
  timing?: Timing;
}
export type ChangeOrderInvoiceOutcome = { status: 'SUCCEEDED' | 'FAILED'; externalId?: string | null; error?: string };
export type ChangeOrderInvoiceWorkflow = (input: ChangeOrderInvoiceInput) => Promise<ChangeOrderInvoiceOutcome>;
/**
 * D19 for a change order's invoice or credit note: while its one provider call has FAILED, the
 * workflow waits (up to the repair window) for `retryLeg` with provider PAYMENTS, the same update
 * an approval takes; this query answers where it stands.
 */
export interface ChangeOrderInvoiceProgress {
  state: ApprovalState;
  outcome: ChangeOrderInvoiceOutcome | null;
}
export type ChangeOrderInvoiceProgressQuery = QueryDefinition<ChangeOrderInvoiceProgress, [], 'changeOrderInvoiceProgress'>;
export const CHANGE_ORDER_INVOICE_PROGRESS: ChangeOrderInvoiceProgressQuery['name'] = 'changeOrderInvoiceProgress';
/** One invoice per approved change order, ever. */
export const changeOrderInvoiceWorkflowId = (changeOrderId: string) => `change-order-invoice-${changeOrderId}`;
// ---- jobCompletionInvoice: issue 30, the completion invoice of document 001 §6.1-6.2 ----
export interface JobCompletionInvoiceInput {
  organizationId: string;
  jobId: string;
  timing?: Timing;
}
export type JobCompletionInvoiceOutcome = ChangeOrderInvoiceOutcome;
export type JobCompletionInvoiceWorkflow = (input: JobCompletionInvoiceInput) => Promise<JobCompletionInvoiceOutcome>;
/** D19 as for a change order's invoice: while its payments call has FAILED it waits for `retryLeg` (PAYMENTS). */
export type JobCompletionInvoiceProgress = ChangeOrderInvoiceProgress;
export type JobCompletionInvoiceProgressQuery = QueryDefinition<JobCompletionInvoiceProgress, [], 'jobCompletionInvoiceProgress'>;
export const JOB_COMPLETION_INVOICE_PROGRESS: JobCompletionInvoiceProgressQuery['name'] = 'jobCompletionInvoiceProgress';
/** One completion invoice per job, ever: keyed by the job. */
export const jobCompletionInvoiceWorkflowId = (jobId: string) => `job-completion-invoice-${jobId}`;
// ---- providerSync: D18, one schedule per tenant and usable provider ----
export interface ProviderSyncInput {
  organizationId: string;
  provider: LegProvider;
  timing?: Timing;
  /** Pages per run before continuing as new; tests lower it. */
  pagesPerRun?: number;
  /** Set by continue-as-new: the run's row exists, and what it did so far. */
  continued?: { seen: number; applied: number };
}
export interface ProviderSyncResult {
  seen: number;
  applied: number;
  error: string | null;
}
export type ProviderSyncWorkflow = (input: ProviderSyncInput) => Promise<ProviderSyncResult>;
/**
 * The schedule's id, and the id of the workflows it starts (Temporal appends each run's scheduled
 * time), so an operator finds a tenant's runs by id prefix as well as by search attributes.
 */
export const providerSyncScheduleId = (ref: { organizationId: string; provider: LegProvider }) => `provider-sync-${ref.organizationId}-${ref.provider.toLowerCase()}`;

// ---- pricebookPublication: D21, one per future-dated price book revision ----
export interface PricebookPublicationInput {
  organizationId: string;
  revisionId: string;
  /** ISO-8601: the instant the revision becomes current (the durable timer's deadline). */
  effectiveFrom: string;
  timing?: Timing;
}
export type PricebookPublicationOutcome = { announced: boolean };
export type PricebookPublicationWorkflow = (input: PricebookPublicationInput) => Promise<PricebookPublicationOutcome>;
/** Keyed by tenant and revision: a retried start lands on the same timer. */
export const pricebookPublicationWorkflowId = (ref: { organizationId: string; revisionId: string }) => `pricebook-publication-${ref.organizationId}-${ref.revisionId}`;

// ---- tenantProvisioning: D22, `npm run ops -- tenant create` ----
export interface TenantProvisioningInput {
  subdomain: string;
  name: string;
  adminEmail: string;
  plan: 'starter' | 'growth' | 'enterprise';
  template: 'sandbox' | 'empty';
  timing?: Timing;
}
/** Each step says whether it made its part now or found it made (by this run's earlier attempt or an earlier run). */
export interface TenantProvisioningResult {
  organizationId: string;
  workspace: 'created' | 'existed';
  priceBook: 'created' | 'existed';
  admin: 'created' | 'existed';
}
export type TenantProvisioningWorkflow = (input: TenantProvisioningInput) => Promise<TenantProvisioningResult>;
/** One provisioning per workspace at a time: the subdomain is the business key. */
export const tenantProvisioningWorkflowId = (subdomain: string) => `tenant-provisioning-${subdomain}`;
// ---- routePlan: D23, one tenant's day planned on the routing task queue ----
export interface RoutePlanInput {
  organizationId: string;
  date: string;
  mode: 'optimize' | 'check';
  keepAssignments: boolean;
  dryRun: boolean;
  /** Who asked: the job history names them. */
  userId: string;
  /**
   * The task queue of the plan's activities (loading, solving, applying): the routing queue,
   * while the workflow itself runs on the main queue. Absent in plans started before it existed,
   * which ran wholly on the routing queue: their activities stay on the workflow's own queue.
   */
  routingTaskQueue?: string;
}
/** The plan (domain/routing/plan.ts PlanResult, as JSON) and, when applied, each stored route's revision. */
export interface RoutePlanResult {
  plan: PlanResult;
  applied: { crewId: string; revision: number; changed: boolean }[] | null;
}
export type RoutePlanWorkflow = (input: RoutePlanInput) => Promise<RoutePlanResult>;
/** One plan at a time per tenant and date: a second request finds this id running. */
export const routePlanWorkflowId = (organizationId: string, date: string) => `route-plan-${organizationId}-${date}`;
/** What a running plan is doing, for a second request while it runs. */
export type RoutePlanStage = 'loading' | 'solving' | 'applying' | 'done';
export type RoutePlanStageQuery = QueryDefinition<RoutePlanStage, [], 'routePlanStage'>;
export const ROUTE_PLAN_STAGE: RoutePlanStageQuery['name'] = 'routePlanStage';
