import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The `integration_oauth_states` table: the single-use nonces of signed OAuth states. Both
 * functions run inside the tenant transaction of the state's tenant.
 */

/** Sweeps nonces past their use for a day (kept that long for support questions), then issues one. */
export async function issueOAuthNonce(em: EntityManager, ref: { provider: string; userId: string }, ttlSeconds: number): Promise<string> {
  await em.execute(`delete from integration_oauth_states where expires_at < now() - interval '1 day'`);
  const [row] = await em.execute<{ id: string }[]>(
    `insert into integration_oauth_states (organization_id, provider, user_id, expires_at)
     values (app_current_organization(), ?, ?, now() + make_interval(secs => ?)) returning id`,
    [ref.provider, ref.userId, ttlSeconds],
  );
  return row!.id;
}

/** True exactly once per nonce, and only before it expires. */
export async function consumeOAuthNonce(em: EntityManager, nonce: { id: string; provider: string; userId: string }): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update integration_oauth_states set consumed_at = now()
      where id = ? and provider = ? and user_id = ? and consumed_at is null and expires_at > now() returning id`,
    [nonce.id, nonce.provider, nonce.userId],
  );
  return rows.length === 1;
}
