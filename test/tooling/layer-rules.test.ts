import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers, checkPromises, CHECKED_FOLDERS } from '../../scripts/lint/checks';

// The checks that `npm test` runs before Jest (scripts/test.ts), proven to bite: a small tree
// with one deliberately wrong import per rule must be refused, each under its rule's name.
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let fixture: string;

const files: Record<string, string> = {
  'domain/pure.ts': `import { z } from 'zod';\nimport Decimal from 'decimal.js';\nexport const PURE = [z.string(), new Decimal(1)];\n`,
  'domain/reaches.ts': `import { rows } from '../db/rows';\nimport { readFileSync } from 'node:fs';\nimport pg from 'pg';\nexport const reaches = [rows, readFileSync, pg];\n`,
  'db/rows.ts': `import { PURE } from '../domain/pure';\nimport { handler } from '../api/handler';\nimport { client } from '../infra/client';\nexport const rows = [PURE, handler, client];\n`,
  'infra/client.ts': `import { PURE } from '../domain/pure';\nimport { KIND } from '../activities/kinds';\nexport const client = [PURE, KIND];\n`,
  'infra/contracts.ts': `export type Contract = 'c';\nexport const CONTRACT = 'c';\n`,
  'activities/io.ts': `import { handler } from '../api/handler';\nimport { flow } from '../workflows/flow';\nimport { client } from '../infra/client';\nexport const io = [handler, flow, client];\n`,
  'activities/kinds.ts': `export type Kind = 'a';\nexport const KIND = 'a';\n`,
  'workflows/flow.ts':
    `import type { Kind } from '../activities/kinds';\nimport { KIND } from '../activities/kinds';\nimport { CONTRACT } from '../infra/contracts';\nimport { readFileSync } from 'node:fs';\nimport { rows } from '../db/rows';\n` +
    `export const flow = (k: Kind) => [k, KIND, CONTRACT, readFileSync, rows];\n`,
  'workflows/typed.ts': `import type { Kind } from '../activities/kinds';\nimport type { Contract } from '../infra/contracts';\nimport { PURE } from '../domain/pure';\nexport const typed = (k: Kind, c: Contract) => [k, c, PURE];\n`,
  'api/handler.ts': `import { flow } from '../workflows/flow';\nimport { KIND } from '../activities/kinds';\nimport { client } from '../infra/client';\nexport const handler = [flow, KIND, client];\n`,
  'worker/main.ts': `import { handler } from '../api/handler';\nexport const main = handler;\n`,
  'bench/run.ts': `import { helper } from '../test/helper';\nexport const run = helper;\n`,
  'test/helper.ts': `export const helper = 1;\n`,
  'api/promises.ts': `async function work(): Promise<number> { return 1; }\nexport function go(): void {\n  work();\n}\n`,
};

beforeAll(() => {
  fixture = mkdtempSync(join(tmpdir(), 'layer-rules-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(fixture, path)), { recursive: true });
    writeFileSync(join(fixture, path), text);
  }
  // The project's packages, so that an npm import resolves as one (zod is allowed in domain/, pg is not).
  symlinkSync(join(projectRoot, 'node_modules'), join(fixture, 'node_modules'), 'dir');
  writeFileSync(
    join(fixture, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'es2024', module: 'preserve', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [] }, include: ['.'] }),
  );
});

afterAll(() => rmSync(fixture, { recursive: true, force: true }));

describe('the layer rules', () => {
  it('pass on the project itself', async () => {
    const result = await checkLayers({ root: projectRoot, rulesRoot: projectRoot, folders: CHECKED_FOLDERS });
    expect(result.output).not.toMatch(/error /);
    expect(result.ok).toBe(true);
  });

  it('refuse each deliberately wrong import under its rule', async () => {
    const result = await checkLayers({ root: fixture, rulesRoot: projectRoot, folders: ['domain', 'db', 'infra', 'activities', 'workflows', 'api', 'worker', 'bench'] });
    expect(result.ok).toBe(false);
    const expected = [
      'domain-imports-nothing-of-ours: domain/reaches.ts → db/rows.ts',
      'domain-does-no-io: domain/reaches.ts → fs',
      'db-imports-only-domain: db/rows.ts → api/handler.ts',
      'db-imports-only-domain: db/rows.ts → infra/client.ts',
      'infra-imports-only-db-and-domain: infra/client.ts → activities/kinds.ts',
      'activities-never-reach-up: activities/io.ts → api/handler.ts',
      'activities-never-reach-up: activities/io.ts → workflows/flow.ts',
      'workflows-take-only-types-from-activities-and-infra: workflows/flow.ts → activities/kinds.ts',
      'workflows-take-only-types-from-activities-and-infra: workflows/flow.ts → infra/contracts.ts',
      'workflows-use-nothing-else-of-ours: workflows/flow.ts → db/rows.ts',
      'workflows-use-no-node-built-ins: workflows/flow.ts → fs',
      'api-never-uses-activities-workflows-or-worker: api/handler.ts → workflows/flow.ts',
      'api-never-uses-activities-workflows-or-worker: api/handler.ts → activities/kinds.ts',
      'worker-never-uses-api: worker/main.ts → api/handler.ts',
      'scripts-and-benchmarks-never-use-tests: bench/run.ts → test/helper.ts',
    ];
    for (const line of expected) expect(result.output).toContain(line);
    // An npm package other than zod, decimal.js and canonicalize (resolved through the linked node_modules).
    expect(result.output).toMatch(/domain-does-no-io: domain\/reaches\.ts → \S*node_modules\/pg\//);
    // What each layer is allowed: domain/ with zod and decimal.js (and canonicalize), db/ and infra/ on domain/, activities/ on infra/, api/ on infra/.
    for (const allowed of ['domain/pure.ts →', 'db/rows.ts → domain/pure.ts', 'infra/client.ts → domain/pure.ts', 'activities/io.ts → infra/client.ts', 'api/handler.ts → infra/client.ts']) {
      expect(result.output).not.toContain(allowed);
    }
    expect(result.output).not.toContain('workflows/typed.ts');
  });
});

describe('the promise rules', () => {
  it('pass on the project itself', async () => {
    const result = await checkPromises({ root: projectRoot, rulesRoot: projectRoot, paths: CHECKED_FOLDERS });
    expect(result.ok).toBe(true);
  });

  it('refuse a floating promise', async () => {
    const result = await checkPromises({ root: fixture, rulesRoot: projectRoot, paths: ['api/promises.ts'] });
    expect(result.ok).toBe(false);
    expect(result.output).toContain('no-floating-promises');
  });
});
