import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { say } from './log';

/**
 * The page tests run in Debian's chromium (test/support/browser.ts). A machine without it gets it
 * from Debian's packages once, when we may install (root with apt-get); otherwise we say how.
 */
export function ensureChromium(path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'): void {
  if (existsSync(path)) return;
  const apt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' });
  if (userInfo().uid !== 0 || apt.status !== 0) {
    say(`no browser at ${path}: the page tests need Debian's chromium (apt-get install chromium, or set CHROMIUM_PATH)`);
    return;
  }
  say('installing Debian\'s chromium for the page tests (once per machine) ...');
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) {
      say(`apt-get ${args.join(' ')} failed; the page tests will say what is missing`);
      return;
    }
  }
}
