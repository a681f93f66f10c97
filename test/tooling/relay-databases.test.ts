import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/infra/paths';

/**
 * An outbox relay leases every tenant's undispatched events. Run by a test file on the suite's
 * shared database, it starts other files' workflows on its own task queue (its worker, its fakes,
 * its keys; nobody's once it has ended), and theirs take its events: a webhook held by one file
 * never went out on resume, because another file's relay had started its endpoint's workflow.
 * So a file that runs a relay (a harness relay, or a worker process, which runs one) works on a
 * database of its own (test/support/own-database.ts, or a URL of its own made with withDatabaseName).
 */
const RUNS_A_RELAY = [/\bdrainOnce\(/, /\brelay\.start\(\)/, /['"]worker\/main\.ts['"]/, /\bnew WorkerProcesses\(/, /\brunCrashCampaign\(/];
const OWN_DATABASE = [/\bnew OwnDatabase\(/, /\bwithDatabaseName\(/];

function relayOnSharedDatabase(source: string): boolean {
  return RUNS_A_RELAY.some((pattern) => pattern.test(source)) && !OWN_DATABASE.some((pattern) => pattern.test(source));
}

describe('test files that run the outbox relay', () => {
  it('the rule tells a relay on the shared database from one on a database of its own', () => {
    expect(relayOnSharedDatabase('beforeAll(async () => { temporal.relay.start(); });')).toBe(true);
    expect(relayOnSharedDatabase('await temporal.relay.drainOnce();')).toBe(true);
    expect(relayOnSharedDatabase("startProcess('worker', 'worker/main.ts', env);")).toBe(true);
    expect(relayOnSharedDatabase("const database = new OwnDatabase('x');\ntemporal.relay.start();")).toBe(false);
    expect(relayOnSharedDatabase('await temporal.dispatcher.dispatch(envelope);')).toBe(false);
  });

  it('each has a database of its own', () => {
    const dir = join(projectRoot, 'test', 'integration');
    const files = readdirSync(dir).filter((name) => name.endsWith('.test.ts'));
    const running = files.filter((name) => RUNS_A_RELAY.some((pattern) => pattern.test(readFileSync(join(dir, name), 'utf8'))));
    // The rule reads real files: the relay runners it must see are there.
    expect(running).toEqual(expect.arrayContaining(['tenant-suspension.test.ts', 'dispatch-updated.test.ts', 'approval.test.ts', 'webhooks.test.ts', 'tracing.test.ts']));
    expect(files.filter((name) => relayOnSharedDatabase(readFileSync(join(dir, name), 'utf8')))).toEqual([]);
  });
});
