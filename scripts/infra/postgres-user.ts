import { execFileSync, spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { say } from './log';

const SUPERUSER = 'postgres';

/**
 * PostgreSQL refuses to run as root. Everything runs as root on our CI machines, so there
 * the server runs as the `postgres` system user, which must own the data folder and be able
 * to reach it. When an ancestor folder is closed to other users (a clone under /root), the
 * data goes to a folder under the system temp dir instead, named after the clone.
 */
export function postgresIds(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const lookup = spawnSync('id', ['-u', SUPERUSER], { encoding: 'utf8' });
  if (lookup.status !== 0) {
    say('running as root: creating the postgres system user to run the embedded database');
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
  }
  const uid = Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

