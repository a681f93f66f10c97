import { createOrm } from './orm';
import { SANDBOX_CREWS, SANDBOX_PASSWORD, SANDBOX_TENANTS, SANDBOX_USERS } from './sandbox';
import { hashPassword } from './passwords';
import { insertRateCardRevision } from './rate-cards/revisions';
import { SANDBOX_RATE_CARDS } from './rate-cards/sandbox-rate-cards';
import { insertMissingProducts } from './catalogue/products';
import { SANDBOX_PRODUCTS } from './catalogue/sandbox-products';
import { CURRENT_VERSION } from '../domain/versions/versions';
import { SANDBOX_DEPOT, SANDBOX_ROUTE_DATE, SANDBOX_ROUTE_JOBS, SANDBOX_ROUTE_NOTE, SANDBOX_TECHNICIANS } from './routing-sandbox';

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
      await seedRoutingDay(conn, org.id);
    }
  } finally {
    await orm.close(true);
  }
}

type Connection = ReturnType<Awaited<ReturnType<typeof createOrm>>['em']['getConnection']>;

/**
 * D23 in the sandbox: a depot (when none is set), technicians' skills and hours (when they have
 * none), located sites and one busy day of jobs on the crews (once: a day already seeded is left
 * as it is, whatever plans did to it since).
 */
async function seedRoutingDay(conn: Connection, organizationId: string): Promise<void> {
  await conn.execute('update organizations set depot_lat = ?, depot_lon = ? where id = ? and depot_lat is null', [SANDBOX_DEPOT.lat, SANDBOX_DEPOT.lon, organizationId]);
  for (const tech of SANDBOX_TECHNICIANS) {
    await conn.execute(
      `insert into technician_routing (organization_id, user_id, skills, weekly)
       select ?, u.id, ?::text[], ?::jsonb from users u where u.organization_id = ? and lower(u.email) = lower(?)
       on conflict (organization_id, user_id) do nothing`,
      [organizationId, `{${tech.skills.join(',')}}`, tech.weekly ? JSON.stringify(tech.weekly) : null, organizationId, tech.email],
    );
  }
  const [seeded] = await conn.execute<{ n: number }[]>('select count(*)::int as n from work_orders where organization_id = ? and notes = ?', [organizationId, SANDBOX_ROUTE_NOTE]);
  if (seeded!.n > 0) return;
  const [admin] = await conn.execute<{ id: string }[]>(`select id from users where organization_id = ? and lower(email) = 'admin@sandbox.test'`, [organizationId]);
  if (!admin) return;
  for (const job of SANDBOX_ROUTE_JOBS) {
    const [site] = await conn.execute<{ id: string }[]>(
      `insert into sites (organization_id, name, region, address_key, lat, lon) values (?, ?, 'CA-ON', lower(?), ?, ?)
       on conflict (organization_id, address_key) do update set lat = coalesce(sites.lat, excluded.lat), lon = coalesce(sites.lon, excluded.lon)
       returning id`,
      [organizationId, job.address, job.address, job.lat, job.lon],
    );
    const [crew] = await conn.execute<{ id: string; foreman_user_id: string }[]>(
      `select c.id, c.foreman_user_id from crews c join users u on u.id = c.foreman_user_id where c.organization_id = ? and lower(u.email) = lower(?) order by c.created_at limit 1`,
      [organizationId, job.foreman],
    );
    const [order] = await conn.execute<{ id: string }[]>(
      `insert into work_orders (organization_id, status, assigned_technician_id, scheduled_date, site_address, notes, created_by_user_id, crew_id, site_id,
                                window_start, window_end, duration_minutes, added_skills)
       values (?, 'PENDING', ?, ?::date, ?, ?, ?, ?, ?, ?::time, ?::time, ?, ?::text[]) returning id`,
      [organizationId, crew?.foreman_user_id ?? null, SANDBOX_ROUTE_DATE, job.address, SANDBOX_ROUTE_NOTE, admin.id, crew?.id ?? null, site!.id,
        job.window?.[0] ?? null, job.window?.[1] ?? null, job.durationMinutes, `{${(job.skills ?? []).join(',')}}`],
    );
    await conn.execute(
      `insert into job_history (organization_id, work_order_id, kind, to_status, changed_by_user_id, detail) values (?, ?, 'created', 'scheduled', ?, '{"seeded": true}'::jsonb)`,
      [organizationId, order!.id, admin.id],
    );
  }
}
