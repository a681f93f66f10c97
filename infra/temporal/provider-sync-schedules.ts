import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { SearchAttributePair } from '@temporalio/common';
import type { Logger } from 'pino';
import { WORKFLOW_TYPES, providerSyncScheduleId, type LegProvider, type ProviderSyncInput, type ProviderSyncWorkflow, type Timing } from './contracts';
import { OrganizationIdKey, OrganizationSubdomainKey, ProviderKey } from './search-attributes';
import type { TenantSubdomains } from './tenant-subdomains';
import { SUSPENDED_NOTE } from './tenant-workflows';

export interface SyncTarget {
  organizationId: string;
  provider: LegProvider;
}

/**
 * D18: one Temporal schedule per tenant and usable provider (`provider-sync-<org>-<provider>`),
 * every `PROVIDER_SYNC_INTERVAL`. Made (or resumed) when the connection becomes usable, paused
 * when it stops being so; its runs carry `OrganizationId`, `OrganizationSubdomain` and `Provider`, so the Temporal UI finds
 * a tenant's sync runs. Operators pause, resume and trigger it there or with the CLI.
 */
export class ProviderSyncSchedules {
  constructor(
    private readonly client: Client,
    private readonly options: { taskQueue: string; subdomains: TenantSubdomains; interval: string | number; timing?: Timing; pagesPerRun?: number; logger?: Logger; /** Run once at creation and on resume (default true). */ runAtOnce?: boolean },
  ) {}

  /** Exists and runs: created (its first run at once) or, when paused, resumed. */
  async ensure(target: SyncTarget, note = 'connection usable'): Promise<void> {
    const scheduleId = providerSyncScheduleId(target);
    const input: ProviderSyncInput = {
      organizationId: target.organizationId,
      provider: target.provider,
      ...(this.options.timing ? { timing: this.options.timing } : {}),
      ...(this.options.pagesPerRun ? { pagesPerRun: this.options.pagesPerRun } : {}),
    };
    try {
      await this.client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: this.options.interval }] },
        action: {
          type: 'startWorkflow',
          workflowType: WORKFLOW_TYPES.providerSync,
          workflowId: scheduleId,
          taskQueue: this.options.taskQueue,
          args: [input] satisfies Parameters<ProviderSyncWorkflow>,
          typedSearchAttributes: await this.runAttributes(target),
        },
        // One run at a time per tenant and provider; a run missed while the worker was down is made up once.
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
        state: { triggerImmediately: this.options.runAtOnce ?? true, note },
      });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      const handle = this.client.schedule.getHandle(scheduleId);
      const described = await handle.describe();
      // A schedule made before its runs named the tenant's subdomain is given it once.
      if (described.action.type === 'startWorkflow' && described.action.typedSearchAttributes && 'get' in described.action.typedSearchAttributes && described.action.typedSearchAttributes.get(OrganizationSubdomainKey) === undefined) {
        const typedSearchAttributes = await this.runAttributes(target);
        await handle.update((previous) => ({ ...previous, action: { ...previous.action, typedSearchAttributes } }));
      }
      // D22: a schedule its tenant's suspension paused stays paused until the tenant is resumed.
      if (described.state.paused && described.state.note !== SUSPENDED_NOTE) {
        await handle.unpause(note);
        if (this.options.runAtOnce ?? true) await handle.trigger();
      }
    }
  }

  private async runAttributes(target: SyncTarget): Promise<SearchAttributePair[]> {
    return [
      { key: OrganizationIdKey, value: target.organizationId },
      { key: OrganizationSubdomainKey, value: await this.options.subdomains.of(target.organizationId) },
      { key: ProviderKey, value: target.provider },
    ];
  }

  /** Stops its runs (the schedule stays, with the reason as its note); nothing to do if none exists. */
  async pause(target: SyncTarget, reason: string): Promise<void> {
    try {
      await this.client.schedule.getHandle(providerSyncScheduleId(target)).pause(reason.slice(0, 500));
    } catch (error) {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  }

  /** Worker start-up: every usable target has its schedule running. */
  async ensureAll(targets: SyncTarget[]): Promise<number> {
    let ensured = 0;
    for (const target of targets) {
      try {
        await this.ensure(target, 'worker start-up');
        ensured++;
      } catch (error) {
        this.options.logger?.warn({ err: error, organization_id: target.organizationId, provider: target.provider }, 'could not ensure the provider sync schedule');
      }
    }
    return ensured;
  }
}
