import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningPostgres } from '../../scripts/infra/embedded-postgres';

/**
 * Freezes a PostgreSQL server that the test started itself (a stalled disk or a network partition
 * as the API sees it: connections stay open, nothing answers) by SIGSTOP of its server process and
 * of every backend it forked, and thaws it by SIGCONT. Only the server of `server.dataDir` is
 * touched: its process id comes from that folder's `postmaster.pid`, and it must be a postgres
 * process started with that folder, so the machine's own PostgreSQL is never signalled.
 */
export interface Frozen {
  /** The process ids stopped: the server first, then its children. */
  pids: number[];
  thaw(): void;
}

function postmasterOf(server: RunningPostgres): number {
  const pid = Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`no server process in ${server.dataDir}/postmaster.pid`);
  const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  if (!/postgres$/.test(command[0] ?? '') || !command.includes(server.dataDir)) throw new Error(`process ${pid} is not the test's PostgreSQL of ${server.dataDir}: ${command.join(' ')}`);
  return pid;
}

const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);

export function freezePostgres(server: RunningPostgres): Frozen {
  const postmaster = postmasterOf(server);
  // The server first, so that it forks nothing more; then every backend it has.
  process.kill(postmaster, 'SIGSTOP');
  const pids = [postmaster, ...childrenOf(postmaster)];
  for (const pid of pids.slice(1)) process.kill(pid, 'SIGSTOP');
  let thawed = false;
  return {
    pids,
    thaw: () => {
      if (thawed) return;
      thawed = true;
      for (const pid of [...pids].reverse()) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // A backend that ended meanwhile.
        }
      }
    },
  };
}
