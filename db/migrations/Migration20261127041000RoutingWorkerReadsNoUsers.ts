import { Migration } from '@mikro-orm/migrations';
import { WORKER_ROLE } from './rls';

/**
 * Least privilege: the worker reads no users. A route plan reads crews (their foreman's id, not
 * name) and technicians' routing rows, never the users table itself.
 */
export class Migration20261127041000RoutingWorkerReadsNoUsers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`revoke select on users from ${WORKER_ROLE}`);
  }
}
