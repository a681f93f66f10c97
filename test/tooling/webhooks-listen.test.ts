// npm run webhooks:listen with --secret: a receiver for an endpoint registered by hand. (Its
// default mode, registering itself through the API, runs in test/integration/readme.test.ts.)
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../scripts/infra/paths';
import { freePort } from '../../scripts/infra/free-port';
import { signPayload } from '../../infra/webhooks/signature';
import { WEBHOOK_HEADERS } from '../../domain/webhooks/headers';
import { waitUntil } from '../../scripts/harness/wait-until';
import { formatHeaders, renderBody } from '../../domain/webhooks/formats';
import { WEBHOOK_FORMATS } from '../../domain/events/catalogue';
import { EVENT_EXAMPLES } from '../../api/events/examples';

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

  it('dispatch.updated in every format (core, field, events): verified by its own header, the route summarised from its body', async () => {
    const port = await freePort();
    const listener = spawn(process.execPath, ['--import', 'tsx', 'scripts/webhooks-listen.ts', '--port', String(port), '--secret', SECRET], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    child = listener;
    let out = '';
    listener.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    listener.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    await waitUntil('Ready', () => out.includes('Ready'), { intervalMs: 100 });
    const example = EVENT_EXAMPLES['dispatch.updated'];
    const route = example.data;
    for (const format of WEBHOOK_FORMATS) {
      // The delivery as the worker sends it: the format's body and headers, signed.
      const body = renderBody(format, JSON.stringify(example), { apiVersion: '2026-01-20', livemode: false });
      const signature = signPayload({ secrets: [SECRET], body, timestamp: Math.floor(Date.now() / 1000) });
      const res = await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json', ...formatHeaders(format, example, signature) }, body });
      expect({ format, status: res.status }).toEqual({ format, status: 200 });
    }
    await waitUntil('three dispatch.updated deliveries', () => out.split('\n').filter((l) => l.includes(`dispatch.updated  delivery ${example.id}  signature verified`)).length === 3, { intervalMs: 100 });
    const summary = `route ${route.id} on ${route.date}, revision ${route.revision}, ${route.changeReason}, ${route.stops.length} stops; changed: ${Object.keys(route.previousAttributes ?? {}).join(', ')}`;
    expect(out.split('\n').filter((l) => l.trim() === summary)).toHaveLength(3);
    const exited = new Promise<number | null>((resolve) => listener.once('exit', resolve));
    listener.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('--help says how to use it', async () => {
    const help = spawn(process.execPath, ['--import', 'tsx', 'scripts/webhooks-listen.ts', '--help'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    help.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((resolve) => help.once('exit', resolve))).toBe(0);
    expect(out).toContain('usage: npm run webhooks:listen');
    expect(out).toContain('--secret WHSEC');
    expect(out).toContain('--format FORMAT');
  });
});
