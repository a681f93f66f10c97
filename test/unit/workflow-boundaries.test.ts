import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/infra/paths';

/**
 * Workflows are deterministic and import no I/O (Temporal's samples enforce the same with a lint
 * rule): only other workflow files, @temporalio/workflow and type-only imports of activities.
 */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const allowedPackages = ['@temporalio/workflow', '@temporalio/common'];

describe('workflows/', () => {
  it('imports no Node built-in, no I/O package, and activities by type only', () => {
    const offences: string[] = [];
    for (const file of files(join(projectRoot, 'workflows'))) {
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        const [, , typeOnly, specifier] = match as unknown as [string, string, string | undefined, string];
        if (typeOnly) continue;
        if (builtins.has(specifier)) offences.push(`${file}: ${specifier}`);
        else if (specifier.startsWith('.')) {
          if (/activities|db\/|api\//.test(specifier)) offences.push(`${file}: ${specifier} (value import)`);
        } else if (!allowedPackages.some((p) => specifier === p || specifier.startsWith(`${p}/`))) offences.push(`${file}: ${specifier}`);
      }
    }
    expect(offences).toEqual([]);
  });
});
