import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installDependencies, installFingerprint, installState, recordInstall, sharedNodeModules } from '../../scripts/install-state.mjs';

describe('npm start / npm test install check', () => {
  it('installs when node_modules is missing, skips when current, reinstalls when the lock changes', () => {
    const root = mkdtempSync(join(tmpdir(), 'install-state-'));
    writeFileSync(join(root, 'package.json'), '{"name":"x"}');
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
    expect(installState(root)).toBe('missing');
    mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(root, 'node_modules', '.bin', 'node'), '');
    expect(installState(root)).toBe('missing');
    recordInstall(root);
    expect(installState(root)).toBe('current');
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
    expect(installState(root)).toBe('stale');
    recordInstall(root);
    writeFileSync(join(root, 'package.json'), '{"name":"x","dependencies":{"y":"1"}}');
    expect(installState(root)).toBe('stale');
  });

  it('a changed npm script is no reason to install again; a changed dependency is; an install recorded before the dependency stamp is judged on the whole manifest', () => {
    const root = mkdtempSync(join(tmpdir(), 'install-state-'));
    writeFileSync(join(root, 'package.json'), '{"name":"x","scripts":{"ops":"node --import tsx scripts/ops.ts"},"dependencies":{"y":"1"}}');
    writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
    mkdirSync(join(root, 'node_modules', '.bin'), { recursive: true });
    writeFileSync(join(root, 'node_modules', '.bin', 'node'), '');
    recordInstall(root);
    writeFileSync(join(root, 'package.json'), '{"name":"x","scripts":{"ops":"node scripts/ops-bundle.mjs","bench:ops":"node --import tsx bench/ops.ts"},"dependencies":{"y":"1"}}');
    expect(installState(root)).toBe('current');
    writeFileSync(join(root, 'package.json'), '{"name":"x","scripts":{"ops":"node scripts/ops-bundle.mjs"},"dependencies":{"y":"2"}}');
    expect(installState(root)).toBe('stale');
    // As a release before the dependency stamp recorded it: the whole manifest's fingerprint only.
    unlinkSync(join(root, 'node_modules', '.shade-office-install-stamp-dependencies'));
    writeFileSync(join(root, 'node_modules', '.shade-office-install-stamp'), installFingerprint(root) + '\n');
    expect(installState(root)).toBe('current');
    writeFileSync(join(root, 'package.json'), '{"name":"x","scripts":{},"dependencies":{"y":"2"}}');
    expect(installState(root)).toBe('stale');
  });

  it('names the checkout whose node_modules this one links to (where npm ci would empty it), and nothing for a folder of its own', () => {
    const main = mkdtempSync(join(tmpdir(), 'install-main-'));
    const worktree = mkdtempSync(join(tmpdir(), 'install-worktree-'));
    mkdirSync(join(main, 'node_modules'));
    symlinkSync(join(main, 'node_modules'), join(worktree, 'node_modules'), 'dir');
    expect(sharedNodeModules(worktree)).toBe(join(main, 'node_modules'));
    expect(sharedNodeModules(main)).toBeUndefined();
  });
});

describe('the bootstrap install step: one calm line, real errors shown', () => {
  // A stand-in for npm that talks like npm ci does on this machine's older Node.
  function fakeNpm(exitCode: number, seconds = 0): { npm: string; args: string } {
    const dir = mkdtempSync(join(tmpdir(), 'fake-npm-'));
    const args = join(dir, 'args');
    const npm = join(dir, 'npm');
    writeFileSync(
      npm,
      [
        '#!/bin/sh',
        `echo "$@" > '${args}'`,
        ...Array.from({ length: 40 }, (_, i) => `echo "npm warn EBADENGINE Unsupported engine { package: 'pkg-${i}@1.0.0', required: { node: '>=22' } }" >&2`),
        ...(seconds > 0 ? ['mkdir -p node_modules/left-pad node_modules/@scope/a node_modules/@scope/b', `sleep ${seconds}`] : []),
        'echo "added 686 packages in 53s"',
        exitCode === 0 ? 'exit 0' : `echo "npm error code E404" >&2; echo "npm error 404 Not Found - GET https://registry.example/left-pad" >&2; exit ${exitCode}`,
      ].join('\n'),
      { mode: 0o755 },
    );
    return { npm, args };
  }
  const capture = () => {
    let text = '';
    return { stream: { isTTY: false, write: (chunk: string) => ((text += chunk), true) }, text: () => text };
  };

  it('prints only "[setup] dependencies ... N s" on success, and asks npm for errors only', async () => {
    const { npm, args } = fakeNpm(0);
    const out = capture();
    expect(await installDependencies(mkdtempSync(join(tmpdir(), 'root-')), 'missing', { npm, stderr: out.stream as never })).toBe(0);
    expect(out.text()).toMatch(/^\[setup\] dependencies \(npm ci\) \.\.\.\n\[setup\] dependencies \(npm ci\) \.\.\. \d+ s\n$/);
    expect(readFileSync(args, 'utf8').trim()).toBe('ci --no-fund --no-audit --loglevel=error');
  });

  it('ticks while npm runs, saying how long and how many packages are in place', async () => {
    const { npm } = fakeNpm(0, 1);
    const out = capture();
    expect(await installDependencies(mkdtempSync(join(tmpdir(), 'root-')), 'missing', { npm, stderr: out.stream as never, tickMs: 300 })).toBe(0);
    const lines = out.text().trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(lines.slice(1, -1).every((line) => /^\[setup\]   still installing \(\d+ s, \d+ packages in place\) \.\.\.$/.test(line))).toBe(true);
    expect(lines.slice(1, -1).at(-1)).toMatch(/, 3 packages in place\)/);
  });

  it('on failure shows everything npm said, and its exit status', async () => {
    const { npm } = fakeNpm(3);
    const out = capture();
    expect(await installDependencies(mkdtempSync(join(tmpdir(), 'root-')), 'stale', { npm, stderr: out.stream as never })).toBe(3);
    expect(out.text()).toMatch(/^\[setup\] dependencies changed: npm ci \.\.\.\n\[setup\] dependencies changed: npm ci \.\.\. failed after \d+ s\n/);
    expect(out.text()).toContain('npm error 404 Not Found');
    expect(out.text()).toContain('[setup] npm ci failed; see the output above.');
  });
});
