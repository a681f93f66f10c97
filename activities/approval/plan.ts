import type { SyncProvider } from '../../db/sync-records';

export interface ApprovalPlan {
  run: SyncProvider[];
  skipped: SyncProvider[];
}

export type ConnectionState = 'CONNECTED' | 'ERROR' | 'EXPIRED' | 'DISCONNECTED' | null;

/**
 * Which legs of the fan-out run (3.4): a provider that is not connected at approval gets a
 * SKIPPED row, with the reason, and is never called. Payments is the platform's own account (D9):
 * connected when the deployment holds its secret key. Accounting and CRM need the tenant's OAuth
 * connection; an EXPIRED one counts as not connected. A connection in ERROR still holds
 * tokens and is tried (its refresh may have recovered). The caller runs it in one tenant
 * transaction (the reads and the SKIPPED rows together, inside the approval's first
 * workflow task as a local activity).
 */
export async function planApprovalLegs(
  deps: {
    paymentsConfigured: boolean;
    providerConfigured: (provider: 'ACCOUNTING' | 'CRM') => boolean;
    connection: (provider: 'ACCOUNTING' | 'CRM') => Promise<ConnectionState>;
    skipped: (ref: { quoteId: string; provider: SyncProvider; reason: string }) => Promise<void>;
  },
  input: { organizationId: string; quoteId: string },
): Promise<ApprovalPlan> {
  const reasons: Partial<Record<SyncProvider, string>> = {};
  if (!deps.paymentsConfigured) reasons.PAYMENTS = 'payments provider not configured on the platform';
  for (const provider of ['ACCOUNTING', 'CRM'] as const) {
    const name = provider === 'ACCOUNTING' ? 'accounting' : 'CRM';
    if (!deps.providerConfigured(provider)) {
      reasons[provider] = `${name} provider not configured on the platform`;
      continue;
    }
    const state = await deps.connection(provider);
    if (state === 'EXPIRED') reasons[provider] = `${name} connection expired; reconnect it`;
    else if (state !== 'CONNECTED' && state !== 'ERROR') reasons[provider] = `${name} provider not connected`;
  }
  const plan: ApprovalPlan = { run: [], skipped: [] };
  for (const provider of ['PAYMENTS', 'ACCOUNTING', 'CRM'] as const) {
    const reason = reasons[provider];
    if (reason) {
      await deps.skipped({ quoteId: input.quoteId, provider, reason });
      plan.skipped.push(provider);
    } else {
      plan.run.push(provider);
    }
  }
  return plan;
}
