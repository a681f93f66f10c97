import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../scripts/infra/paths';
import { CURRENT_VERSION } from '../../domain/versions/versions';
import { PLAN_LIMITS } from '../../db/plans/plan-limits';
import { readmeBlocks } from '../support/readme-script';

/**
 * What the documents say of the code, held to the code: each claim here was once false while
 * the code had moved on (the decisions' range, the patches in the workflows, the version a new
 * endpoint pins, whether the plans' Routes are enforced). The documents' commands themselves run
 * in test/integration/readme.test.ts.
 */
const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');

function filesUnder(dir: string, extension: string): string[] {
  return readdirSync(join(projectRoot, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(projectRoot, path)).isDirectory()) return name === 'node_modules' || name === 'histories' ? [] : filesUnder(path, extension);
    return path.endsWith(extension) ? [path] : [];
  });
}

describe('the documents say what the code does', () => {
  it('the README names the decisions up to the highest one the code and documents cite', () => {
    const sources = ['api', 'activities', 'db', 'domain', 'infra', 'worker', 'workflows', 'scripts', 'test'].flatMap((dir) => filesUnder(dir, '.ts'));
    const cited = [...sources, ...filesUnder('docs', '.md')].flatMap((path) => [...read(path).matchAll(/\bD([1-9][0-9]?)\b/g)].map((m) => Number(m[1])));
    const highest = Math.max(...cited);
    expect(highest).toBeGreaterThanOrEqual(25);
    expect(/`D1`…`D(\d+)`/.exec(read('README.md'))?.[1]).toBe(String(highest));
    expect(/`decisions\.md` \(D1–D(\d+)\)/.exec(read('docs/decisions.md'))?.[1]).toBe(String(highest));
  });

  it("docs/workflow-versioning.md's state today lists exactly the patches the workflows ask for", () => {
    const patches = new Set<string>();
    for (const path of filesUnder('workflows', '.ts')) {
      const source = read(path);
      for (const call of source.matchAll(/\b(?:patched|deprecatePatch)\(\s*([A-Z_]+|'[^']+')\s*\)/g)) {
        const argument = call[1]!;
        const id = argument.startsWith("'") ? argument.slice(1, -1) : new RegExp(`const ${argument} = '([^']+)'`).exec(source)?.[1];
        expect({ path, argument, id }).toEqual({ path, argument, id: expect.any(String) });
        patches.add(id!);
      }
    }
    expect([...patches].sort()).toEqual(['customer-invoice-email', 'tenant-organization-id']);
    const today = read('docs/workflow-versioning.md').split('## The state today')[1]!;
    const listed = [...today.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...patches].sort());
    expect(today).not.toMatch(/no workflow has a patch/i);
  });

  it('docs/webhooks.md names the version a new endpoint pins today: the current one', () => {
    const said = /the current version when it registered, `(\d{4}-\d{2}-\d{2})` today/.exec(read('docs/webhooks.md'))?.[1];
    expect(said).toBe(CURRENT_VERSION);
  });

  it("docs/plan-limits.md says the plans' Routes are enforced, as route planning does (PLAN_ROUTE_LIMIT), with the table's figures", () => {
    const limits = read('docs/plan-limits.md');
    expect(limits).not.toMatch(/nothing enforces it/);
    expect(limits).toContain('PLAN_ROUTE_LIMIT');
    expect(limits).toContain(`(${PLAN_LIMITS.starter.routes}, ${PLAN_LIMITS.growth.routes}, ${PLAN_LIMITS.enterprise.routes})`);
    // The code does enforce it: planning reads the plan's Routes and refuses crews beyond them.
    expect(read('db/fsm/routes.ts')).toMatch(/PLAN_LIMITS\[[^\]]+\]\.routes/);
    expect(read('domain/routing/constraints.ts')).toContain("code: 'PLAN_ROUTE_LIMIT'");
    expect(read('db/plans/plan-limits.ts')).not.toMatch(/nothing enforces it/);
  });

  it('every shell block of the documents either runs in a test or says why not', () => {
    // test/integration/readme.test.ts runs every other block (README.md and docs/*.md) against npm start.
    for (const path of ['README.md', ...filesUnder('docs', '.md')]) {
      for (const block of readmeBlocks(read(path)).filter((b) => b.mode === 'skip')) {
        const marker = read(path).split('\n').slice(0, block.line - 1).reverse().find((line) => line.trim() !== '' && !line.startsWith('```'));
        expect({ file: relative(projectRoot, join(projectRoot, path)), line: block.line, reason: /skip \((.+)\)/.exec(marker ?? '')?.[1] ?? null }).toEqual({
          file: path,
          line: block.line,
          reason: expect.stringMatching(/\w{3,}/),
        });
      }
    }
  });
});
