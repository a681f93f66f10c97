import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { ownerPool } from '../../scripts/harness/owner-db';
import { seedSandbox } from '../../db/seed';
import { SANDBOX_TENANTS, SANDBOX_USERS } from '../../db/sandbox';

let owner: pg.Pool;
beforeAll(() => {
  owner = ownerPool();
});
afterAll(() => owner.end());

const SEEDED = ['organizations', 'users', 'rate_card_revisions', 'rate_card_skus', 'rate_card_labour_tiers'];

async function snapshot(): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const table of SEEDED) result[table] = (await owner.query(`select * from "${table}" order by id`)).rows;
  return result;
}

describe('sandbox seed (D1)', () => {
  it('is idempotent: a second run changes nothing', async () => {
    const before = await snapshot();
    await seedSandbox(process.env.DATABASE_URL!);
    expect(await snapshot()).toEqual(before);
  });

  it('holds both tenants with the D1 users, states, catalogue and floors', async () => {
    for (const tenant of SANDBOX_TENANTS) {
      const users = await owner.query(
        `select u.email, u.role, u.active from users u join organizations o on o.id = u.organization_id where o.subdomain = $1`,
        [tenant.subdomain],
      );
      const byEmail = (a: { email: string }, b: { email: string }) => (a.email < b.email ? -1 : 1);
      expect(users.rows.filter((u) => u.email.endsWith('@sandbox.test')).sort(byEmail)).toEqual(
        [...SANDBOX_USERS].sort(byEmail).map((u) => ({ email: u.email, role: u.role, active: u.active })),
      );
      const card = await owner.query(
        `select r.margin_floor, array_agg(s.component || ':' || s.code order by s.code) as skus,
                (select array_agg(t.code order by t.code) from rate_card_labour_tiers t where t.revision_id = r.id) as tiers
           from rate_card_revisions r join organizations o on o.id = r.organization_id join rate_card_skus s on s.revision_id = r.id
          where o.subdomain = $1 group by r.id order by r.revision limit 1`,
        [tenant.subdomain],
      );
      expect(Number(card.rows[0].margin_floor)).toBe(Number(tenant.marginFloor));
      expect(card.rows[0].skus).toEqual([
        'fabric:FAB-BLACKOUT', 'fabric:FAB-SCREEN-3', 'hardware:HW-ROLLER-HD', 'hardware:HW-ROLLER-STD',
        'motor:MTR-BATTERY', 'motor:MTR-WIRED', 'trim:TRIM-CASSETTE', 'trim:TRIM-FASCIA',
      ]);
      expect(card.rows[0].tiers).toEqual(['PREMIUM', 'STANDARD']);
    }
  });
});
