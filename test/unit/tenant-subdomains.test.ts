import { describe, expect, it } from '@jest/globals';
import type { EntityManager } from '@mikro-orm/postgresql';
import { knownSubdomains, tenantSubdomainsFrom } from '../../infra/temporal/tenant-subdomains';

/**
 * The starters' source of `OrganizationSubdomain`: a subdomain never changes, so each tenant's is
 * read once per process. The webhook dispatch path wakes an endpoint's workflow per event batch;
 * these show it pays one read per tenant, not one per wake. The database is a recording stand-in:
 * each transaction selects its tenant first, as db/tenant-scope.ts does, and answers that
 * tenant's row alone (row-level security).
 */
function recordingDatabase(subdomains: Record<string, string>) {
  const reads: { organizationId: string; quoteId: unknown }[] = [];
  let failNext = false;
  const em = {
    fork: () => ({
      transactional: async <T>(work: (tx: unknown) => Promise<T>): Promise<T> => {
        let tenant: string | undefined;
        const tx = {
          execute: async (sql: string, params: unknown[] = []) => {
            if (sql.includes('app_enter_tenant')) {
              tenant = params[0] as string;
              return [];
            }
            if (failNext) {
              failNext = false;
              throw new Error('connection refused');
            }
            reads.push({ organizationId: tenant!, quoteId: params[0] });
            const subdomain = subdomains[tenant!];
            return subdomain ? [{ subdomain, quote_number: params[0] === null ? null : 3 }] : [];
          },
        };
        return work(tx);
      },
    }),
  } as unknown as EntityManager;
  return { em, reads, failNextRead: () => (failNext = true) };
}

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

describe('tenantSubdomainsFrom: one read per tenant and process', () => {
  it('answers each tenant\'s subdomain, reading it once however many starts (at once or one after another) ask', async () => {
    const db = recordingDatabase({ [A]: 'sandbox', [B]: 'sandbox-alt' });
    const subdomains = tenantSubdomainsFrom(db.em);
    expect(await Promise.all([subdomains.of(A), subdomains.of(A), subdomains.of(B)])).toEqual(['sandbox', 'sandbox', 'sandbox-alt']);
    for (let wake = 0; wake < 100; wake++) expect(await subdomains.of(A)).toBe('sandbox');
    expect(db.reads.map((r) => r.organizationId).sort()).toEqual([A, B]);
  });

  it('a failed read is not kept: the next start reads again', async () => {
    const db = recordingDatabase({ [A]: 'sandbox' });
    const subdomains = tenantSubdomainsFrom(db.em);
    db.failNextRead();
    await expect(subdomains.of(A)).rejects.toThrow('connection refused');
    expect(await subdomains.of(A)).toBe('sandbox');
    expect(await subdomains.of(A)).toBe('sandbox');
    expect(db.reads).toHaveLength(1);
  });

  it('an unknown tenant is an error, not an empty attribute', async () => {
    const subdomains = tenantSubdomainsFrom(recordingDatabase({}).em);
    await expect(subdomains.of(A)).rejects.toThrow(`no organization ${A}`);
  });

  it('a change order\'s quote number is read with the subdomain in one statement, and that read serves later starts', async () => {
    const db = recordingDatabase({ [A]: 'sandbox' });
    const subdomains = tenantSubdomainsFrom(db.em);
    expect(await subdomains.withQuoteNumber(A, 'quote-1')).toEqual({ subdomain: 'sandbox', quoteNumber: 3 });
    expect(await subdomains.of(A)).toBe('sandbox');
    expect(db.reads).toEqual([{ organizationId: A, quoteId: 'quote-1' }]);
  });
});

describe('knownSubdomains: the subdomain a caller already holds', () => {
  it('answers it, and refuses a tenant it was not given', async () => {
    const subdomains = knownSubdomains(new Map([[A, 'sandbox']]));
    expect(await subdomains.of(A)).toBe('sandbox');
    await expect(subdomains.of(B)).rejects.toThrow(`subdomain of organization ${B} not known`);
  });
});
