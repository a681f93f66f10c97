import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from './free-port';
import { projectRoot } from './paths';

/**
 * D13's local mail catcher: MailDev (a maintained npm package, installed with the dev
 * dependencies by `npm ci`), an SMTP server with a web UI and a REST API, listening on
 * 127.0.0.1 only. `npm start` points SMTP_URL at it unless one is set; tests send through it
 * and read the messages back through its API. It relays nothing (no outgoing host is given).
 *
 * Why not mailpit: its module cannot be fetched through the Go module proxy reachable here, and
 * `go install` builds it without its web UI (the UI bundle is not in the module).
 */
const MAILDEV = join(projectRoot, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js');

export interface MailCatcher {
  /** SMTP_URL for the processes that send. */
  smtpUrl: string;
  /** The web UI (and, under /api/, its REST API). */
  webUrl: string;
  /** Every message received so far, oldest first. */
  messages(): Promise<CaughtMail[]>;
  stop(): Promise<void>;
}

/** A message as MailDev's API answers it (the fields we read). */
export interface CaughtMail {
  id: string;
  subject: string;
  text: string;
  to: { address: string; name: string }[];
  from: { address: string; name: string }[];
  headers: Record<string, string>;
}

/** Tries with ports of its own choosing: another process may take a free port before MailDev binds it. */
const ATTEMPTS = 3;

export async function startMailCatcher(ports: { smtp?: number; web?: number } = {}): Promise<MailCatcher> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(ports);
    } catch (error) {
      const chosenHere = !ports.smtp && !ports.web;
      if (!(error instanceof ExitedAtStart) || !chosenHere || attempt === ATTEMPTS) throw error;
    }
  }
}

class ExitedAtStart extends Error {}

async function startOnce(ports: { smtp?: number; web?: number }): Promise<MailCatcher> {
  const smtp = ports.smtp || (await freePort());
  const web = ports.web || (await freePort());
  // Its own folder: MailDev's default one is shared by every instance on the machine.
  const directory = mkdtempSync(join(tmpdir(), 'shade-office-mail-'));
  const child = spawn(
    process.execPath,
    [MAILDEV, '--smtp', String(smtp), '--ip', '127.0.0.1', '--web', String(web), '--web-ip', '127.0.0.1', '--mail-directory', directory, '--silent'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // What it says on stderr, passed on, and kept to explain an exit at start.
  let said = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString()).slice(-2000);
    process.stderr.write(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await Promise.race([
      Promise.all([waitForPort(smtp, '127.0.0.1', 30_000), waitForPort(web, '127.0.0.1', 30_000)]),
      exited.then(() => {
        throw new ExitedAtStart(`the mail catcher exited at start (is 127.0.0.1:${smtp} or 127.0.0.1:${web} taken?)${said ? `: ${said.trim()}` : ''}`);
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const webUrl = `http://127.0.0.1:${web}`;
  return {
    smtpUrl: `smtp://127.0.0.1:${smtp}`,
    webUrl,
    async messages() {
      const res = await fetch(`${webUrl}/api/email`);
      if (!res.ok) throw new Error(`the mail catcher's API answered ${res.status}`);
      return (await res.json()) as CaughtMail[];
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
