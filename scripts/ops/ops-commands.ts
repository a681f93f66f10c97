import type { Client } from '@temporalio/client';
import { TenantUsageError, USAGE, UsageError } from './usage';
import type { OpsSettings } from './ops-settings';

export type { OpsSettings } from './ops-settings';

/** Exit code of a bad command line (as of a call nothing could retry). */
const BAD_COMMAND_LINE = 2;

/**
 * Runs one `ops` command line (the words after `npm run ops --`); answers its exit code. A bad
 * command line is said on `err` and answers 2. Each command loads only what it uses (the
 * database driver, the ORM, the Temporal client), so `--help` answers without any of them.
 */
export async function runOps(argv: readonly string[], settings: OpsSettings): Promise<number> {
  const [command, ...rest] = argv;
  const withTemporal = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
    const { Client, Connection } = await import('@temporalio/client');
    const connection = await Connection.connect({ address: settings.temporalAddress });
    try {
      return await work(new Client({ connection, namespace: settings.namespace }));
    } finally {
      await connection.close();
    }
  };
  try {
    if (command === 'failed' || command === 'retry') {
      const { repairCommand } = await import('./repair-commands');
      return await repairCommand(command, rest, { ...settings, withTemporal });
    }
    if (command === 'tenant') {
      const [{ createOrm }, { tenantCommand }] = await Promise.all([import('../../db/orm'), import('./tenant-commands')]);
      const orm = await createOrm({ url: settings.databaseUrl, poolMax: 2 });
      try {
        return await tenantCommand({ em: orm.em, withTemporal, taskQueue: settings.taskQueue, out: settings.out }, rest);
      } finally {
        await orm.close(true);
      }
    }
    if ((command === '--help' || command === 'help') && rest.length === 0) {
      settings.out(USAGE);
      return 0;
    }
    throw new UsageError(USAGE);
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TenantUsageError)) throw error;
    settings.err(error.message);
    return BAD_COMMAND_LINE;
  }
}
