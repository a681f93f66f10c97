import { Migration } from '@mikro-orm/migrations';
import { APP_ROLE, WORKER_ROLE } from './rls';

/**
 * Rolling deploys: every API and worker process records which schema it was built for (the last
 * migration it knows) and refreshes the row while it runs, so that `migrate` can refuse a contract
 * step (one that removes what an older release still reads) while such a release runs. Not tenant
 * data: one row per process, no row-level security.
 */
export class Migration20261127000100RunningReleases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table running_releases (
      process_id uuid primary key,
      role text not null check (role in ('api', 'worker')),
      schema_version text not null,
      started_at timestamptz not null default now(),
      last_seen_at timestamptz not null default now()
    )`);
    this.addSql(`grant select, insert, update, delete on running_releases to ${APP_ROLE}, ${WORKER_ROLE}`);
  }
}
