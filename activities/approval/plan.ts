import type { SyncProvider, SyncRecords } from '../sync-records';

export interface ApprovalPlan {
  run: SyncProvider[];
  skipped: SyncProvider[];
}

/**
 * Which legs of the fan-out run (3.4): a provider that is not connected at approval gets a
 * SKIPPED row and is never called. Payments is the platform's own account (D9): connected when
 * the deployment holds its secret key. Accounting and CRM need a tenant's OAuth connection, which
 * no tenant can hold yet (the integrations issue adds connecting), so they are skipped.
 */
export async function planApprovalLegs(
  deps: { syncRecords: SyncRecords; paymentsConfigured: boolean },
  input: { organizationId: string; quoteId: string },
): Promise<ApprovalPlan> {
  const plan: ApprovalPlan = { run: [], skipped: [] };
  const reasons: Partial<Record<SyncProvider, string>> = {
    ...(deps.paymentsConfigured ? {} : { PAYMENTS: 'payments provider not configured on the platform' }),
    ACCOUNTING: 'accounting provider not connected',
    CRM: 'CRM provider not connected',
  };
  for (const provider of ['PAYMENTS', 'ACCOUNTING', 'CRM'] as const) {
    const reason = reasons[provider];
    if (reason) {
      await deps.syncRecords.skipped({ ...input, provider, reason });
      plan.skipped.push(provider);
    } else {
      plan.run.push(provider);
    }
  }
  return plan;
}
