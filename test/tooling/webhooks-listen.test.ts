// npm run webhooks:listen with --secret: a receiver for an endpoint registered by hand. (Its
// default mode, registering itself through the API, runs in test/integration/readme.test.ts.)
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../scripts/infra/paths';
import { freePort } from '../../scripts/infra/free-port';
import { signPayload } from '../../infra/webhooks/signature';
import { WEBHOOK_HEADERS } from '../../domain/webhooks/headers';
import { waitUntil } from '../../scripts/harness/wait-until';

const SECRET = 'whsec_listen_test_0123456789abcdef';
let child: ChildProcess | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});


describe('npm run webhooks:listen -- --secret', () => {
  it('prints each delivery with whether its signature verified, answers 400 to one that does not, and stops on SIGTERM', async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/webhooks-listen.ts', '--port', String(port), '--secret', SECRET], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    await waitUntil('Ready', () => out.includes('Ready'), { intervalMs: 100 });
    expect(out).toContain(`listening on http://127.0.0.1:${port}/webhooks, verifying with the secret given`);
    expect(out).not.toContain(SECRET);

    const body = JSON.stringify({ event: 'quote.approved', id: 'e1', data: { quote_number: 7 } });
    const send = (signature: string) =>
      fetch(`http://127.0.0.1:${port}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [WEBHOOK_HEADERS.event]: 'quote.approved', [WEBHOOK_HEADERS.delivery]: 'e1', [WEBHOOK_HEADERS.signature]: signature },
        body,
      });
    const good = await send(signPayload({ secrets: [SECRET], body, timestamp: Math.floor(Date.now() / 1000) }));
    expect(good.status).toBe(200);
    const bad = await send(signPayload({ secrets: ['whsec_someone_else'], body, timestamp: Math.floor(Date.now() / 1000) }));
    expect(bad.status).toBe(400);
    await waitUntil('two printed deliveries', () => out.split('\n').filter((l) => l.includes('quote.approved  delivery e1')).length === 2, { intervalMs: 100 });
    expect(out).toMatch(/POST \/webhooks {2}quote\.approved {2}delivery e1 {2}signature verified\n {2}\{"event":"quote.approved"/);
    expect(out).toContain('signature NOT verified (signature_mismatch)');

    const exited = new Promise<number | null>((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('--help says how to use it', async () => {
    const help = spawn(process.execPath, ['--import', 'tsx', 'scripts/webhooks-listen.ts', '--help'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    help.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((resolve) => help.once('exit', resolve))).toBe(0);
    expect(out).toContain('usage: npm run webhooks:listen');
    expect(out).toContain('--secret WHSEC');
  });
});
