import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/infra/paths';

/**
 * `npm run ops` runs compiled: plain node on a bundle of scripts/ops.ts (scripts/ops-bundle.mjs,
 * built into .data/ops/ on first use and again when a source is newer), not tsx transpiling every
 * module on each call. `npm run bench:ops` times it against tsx; this shows how it runs.
 */
const npmPath = `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`;

function npmOps(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'ops', '--', ...args], { cwd: projectRoot, env: { ...process.env, NODE_OPTIONS: '', PATH: npmPath } }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: stdout, err: stderr }),
    );
  });
}

const current = () => JSON.parse(readFileSync(join(projectRoot, '.data', 'ops', 'current.json'), 'utf8')) as { entry: string; inputs: string[] };

describe('npm run ops', () => {
  it('is plain node on the bundle (no tsx), as package.json says', () => {
    const scripts = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.ops).toBe('node scripts/ops-bundle.mjs');
  });

  it('answers --help from the bundle, built from the sources it names; a bad command line exits 2 with the usage', async () => {
    const help = await npmOps('--help');
    expect({ code: help.code, err: help.err }).toEqual({ code: 0, err: '' });
    expect(help.out).toMatch(/^usage: npm run ops -- failed\n/);
    expect(help.out).toContain('npm run ops -- tenant list');
    const build = current();
    expect(build.entry).toMatch(/^build-[\w-]+\/ops\.mjs$/);
    expect(build.inputs).toEqual(expect.arrayContaining(['scripts/ops.ts', 'scripts/ops/ops-commands.ts', 'scripts/ops/repair-commands.ts', 'scripts/ops/tenant-commands.ts']));
    // Nothing of the sources' TypeScript is left to a loader at run time.
    expect(readFileSync(join(projectRoot, '.data', 'ops', build.entry), 'utf8')).not.toMatch(/from ["']\.{1,2}\/[^"']*\.ts["']/);

    const bad = await npmOps('nonsense');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^usage: npm run ops/);
  }, 60_000);

  it('is built again once a source it was built from is newer than it, and not otherwise', async () => {
    await npmOps('--help');
    const before = current().entry;
    expect((await npmOps('--help')).code).toBe(0);
    expect(current().entry).toBe(before);
    // A source edited after the build (its time set to now, as a save does).
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = new Date();
    utimesSync(join(projectRoot, 'scripts/ops/usage.ts'), now, now);
    expect((await npmOps('--help')).code).toBe(0);
    expect(current().entry).not.toBe(before);
  }, 60_000);
});
