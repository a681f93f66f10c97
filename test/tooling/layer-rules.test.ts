import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers, checkPromises, CHECKED_FOLDERS } from '../../scripts/lint/checks';

// The checks that `npm test` runs before Jest (scripts/test.ts), proven to bite: a small tree
// with one deliberately wrong import per rule must be refused, each under its rule's name.
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
let fixture: string;

const files: Record<string, string> = {
  'db/rows.ts': `import { handler } from '../api/handler';\nexport const rows = handler;\n`,
  'activities/io.ts': `import { handler } from '../api/handler';\nimport { flow } from '../workflows/flow';\nexport const io = [handler, flow];\n`,
  'activities/kinds.ts': `export type Kind = 'a';\nexport const KIND = 'a';\n`,
  'workflows/flow.ts':
    `import type { Kind } from '../activities/kinds';\nimport { KIND } from '../activities/kinds';\nimport { readFileSync } from 'node:fs';\nimport { rows } from '../db/rows';\n` +
    `export const flow = (k: Kind) => [k, KIND, readFileSync, rows];\n`,
  'workflows/typed.ts': `import type { Kind } from '../activities/kinds';\nexport const typed = (k: Kind) => k;\n`,
  'api/handler.ts': `import { flow } from '../workflows/flow';\nexport const handler = flow;\n`,
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
    const result = await checkLayers({ root: fixture, rulesRoot: projectRoot, folders: ['db', 'activities', 'workflows', 'api', 'worker', 'bench'] });
    expect(result.ok).toBe(false);
    const expected = [
      'db-imports-nothing-of-ours: db/rows.ts → api/handler.ts',
      'activities-only-use-db: activities/io.ts → api/handler.ts',
      'activities-only-use-db: activities/io.ts → workflows/flow.ts',
      'workflows-take-only-types-from-activities: workflows/flow.ts → activities/kinds.ts',
      'workflows-use-nothing-else-of-ours: workflows/flow.ts → db/rows.ts',
      'workflows-use-no-node-built-ins: workflows/flow.ts → fs',
      'api-never-uses-workflows-or-worker: api/handler.ts → workflows/flow.ts',
      'worker-never-uses-api: worker/main.ts → api/handler.ts',
      'scripts-and-benchmarks-never-use-tests: bench/run.ts → test/helper.ts',
    ];
    for (const line of expected) expect(result.output).toContain(line);
    // A type-only import from activities is what workflows are allowed.
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
