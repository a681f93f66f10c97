import { createOrm } from './orm';
import { SANDBOX_CREWS, SANDBOX_PASSWORD, SANDBOX_TENANTS, SANDBOX_USERS } from './sandbox';
import { hashPassword } from './passwords';
import { insertRateCardRevision } from './rate-cards/revisions';
import { SANDBOX_RATE_CARDS } from './rate-cards/sandbox-rate-cards';
import { insertMissingProducts } from './catalogue/products';
import { SANDBOX_PRODUCTS } from './catalogue/sandbox-products';
import { CURRENT_VERSION } from '../domain/versions/versions';

/**
 * D1: seeds the sandbox tenants (users, a first rate-card revision and, D11, two crews) idempotently, as the owner. Rows that exist are left exactly
 * as they are (a demo user whose password was changed keeps it), so a second run changes nothing.
 */
export async function seedSandbox(ownerUrl: string): Promise<void> {
  const orm = await createOrm({ url: ownerUrl, poolMax: 2 });
  try {
    const conn = orm.em.getConnection();
    for (const tenant of SANDBOX_TENANTS) {
      await conn.execute(
        `insert into organizations (name, subdomain) values (?, ?) on conflict (subdomain) do nothing`,
        [tenant.name, tenant.subdomain],
      );
      const [org] = await conn.execute<{ id: string }[]>(`select id from organizations where subdomain = ?`, [tenant.subdomain]);
      if (!org) throw new Error(`sandbox tenant ${tenant.subdomain} missing after insert`);
      const [card] = await conn.execute<{ n: number }[]>(`select count(*)::int as n from rate_card_revisions where organization_id = ?`, [org.id]);
      const sandboxCard = SANDBOX_RATE_CARDS.find((c) => c.subdomain === tenant.subdomain);
      if (card?.n === 0 && sandboxCard) {
        await orm.em.fork().transactional((tx) => insertRateCardRevision(tx, org.id, sandboxCard));
      }
      // D14: the products of the catalogue; D15: the sandbox tenants are on the growth plan; D16:
      // pinned now to the current version (as their first request would, but before any request).
      await insertMissingProducts(orm.em.fork(), org.id, SANDBOX_PRODUCTS);
      await conn.execute(
        `update organizations set plan = 'growth', api_version = coalesce(api_version, ?) where id = ? and (plan <> 'growth' or api_version is null)`,
        [CURRENT_VERSION, org.id],
      );
      for (const user of SANDBOX_USERS) {
        const [existing] = await conn.execute<{ id: string }[]>(
          `select id from users where organization_id = ? and lower(email) = lower(?)`,
          [org.id, user.email],
        );
        if (existing) continue;
        await conn.execute(
          `insert into users (organization_id, email, full_name, role, password_hash, active) values (?, ?, ?, ?, ?, ?)
           on conflict do nothing`,
          [org.id, user.email, user.fullName, user.role, await hashPassword(SANDBOX_PASSWORD), user.active],
        );
      }
      // D11: the sandbox's crews, made once (a crew renamed or changed since is left as it is).
      for (const crew of SANDBOX_CREWS) {
        const [made] = await conn.execute<{ id: string }[]>(
          `insert into crews (organization_id, name, foreman_user_id)
           select ?, ?, u.id from users u where u.organization_id = ? and lower(u.email) = lower(?)
              and not exists (select 1 from crews c where c.organization_id = ? and c.name = ?)
           returning id`,
          [org.id, crew.name, org.id, crew.foreman, org.id, crew.name],
        );
        if (!made) continue;
        await conn.execute(
          `insert into crew_members (organization_id, crew_id, user_id)
           select ?, ?, u.id from users u where u.organization_id = ? and lower(u.email) in (select jsonb_array_elements_text(?::jsonb))`,
          [org.id, made.id, org.id, JSON.stringify(crew.members.map((m) => m.toLowerCase()))],
        );
      }
    }
  } finally {
    await orm.close(true);
  }
}
