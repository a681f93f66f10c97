import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installDependencies, installState } from '../../scripts/install-state.mjs';
import { projectRoot } from '../../scripts/infra/paths';
import { waitUntil } from '../../scripts/harness/wait-until';

const made: string[] = [];
const folder = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};
/** Stand-in launchers that wait for a signal: stopped here should a test fail before it sends one. */
const waiting: number[] = [];
afterAll(() => {
  for (const pid of waiting) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const writeJson = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value, null, 2));

describe('npm start / npm test install check (scripts/install-state.mjs)', () => {
  /**
   * A project as a user has it: one dependency (the stand-in for the `node` dev dependency, with
   * its `node` bin) packed as a tarball, its lock written by npm, installed by the user's own
   * `npm ci`. Real npm, offline: the tarball is a local file.
   */
  function userInstalledProject(): string {
    const dir = folder('install-state-');
    const npm = (cwd: string, ...args: string[]) => execFileSync('npm', [...args, '--offline', '--cache', join(dir, 'cache'), '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: 'pipe' });
    mkdirSync(join(dir, 'fake-node'));
    writeJson(join(dir, 'fake-node', 'package.json'), { name: 'fake-node', version: '1.0.0', bin: { node: 'node.sh' } });
    writeFileSync(join(dir, 'fake-node', 'node.sh'), '#!/bin/sh\n', { mode: 0o755 });
    npm(join(dir, 'fake-node'), 'pack');
    const root = join(dir, 'app');
    mkdirSync(root);
    writeJson(join(root, 'package.json'), { name: 'app', version: '1.0.0', scripts: { start: 'node scripts/bootstrap.mjs start' }, devDependencies: { 'fake-node': 'file:../fake-node/fake-node-1.0.0.tgz' } });
    npm(root, 'install', '--package-lock-only');
    expect(installState(root)).toBe('missing');
    npm(root, 'ci');
    return root;
  }

  it('recognises an install the user made with npm ci as current, with nothing of ours written', () => {
    const root = userInstalledProject();
    expect(existsSync(join(root, 'node_modules', '.bin', 'node'))).toBe(true);
    expect(installState(root)).toBe('current');
    // Changes to package.json that need no install (its scripts) leave it current.
    const manifest = readJson(join(root, 'package.json'));
    writeJson(join(root, 'package.json'), { ...manifest, scripts: { start: 'node scripts/bootstrap.mjs start', extra: 'true' } });
    expect(installState(root)).toBe('current');
    rmSync(join(root, '..'), { recursive: true, force: true });
  }, 60_000);

  it('is stale when package.json asks for other dependencies, the lock changed, or a package is gone', () => {
    const root = userInstalledProject();
    const manifestText = readFileSync(join(root, 'package.json'), 'utf8');
    const manifest = JSON.parse(manifestText) as { devDependencies: Record<string, string> };
    writeJson(join(root, 'package.json'), { ...manifest, devDependencies: { ...manifest.devDependencies, 'left-pad': '1.3.0' } });
    expect(installState(root)).toBe('stale');
    writeFileSync(join(root, 'package.json'), manifestText);
    expect(installState(root)).toBe('current');

    const lockText = readFileSync(join(root, 'package-lock.json'), 'utf8');
    const lock = JSON.parse(lockText) as { packages: Record<string, Record<string, unknown>> };
    lock.packages['node_modules/fake-node']!.version = '1.0.1';
    writeJson(join(root, 'package-lock.json'), lock);
    expect(installState(root)).toBe('stale');
    writeFileSync(join(root, 'package-lock.json'), lockText);
    expect(installState(root)).toBe('current');

    rmSync(join(root, 'node_modules', 'fake-node', 'package.json'));
    expect(installState(root)).toBe('stale');
    rmSync(join(root, 'node_modules'), { recursive: true, force: true });
    expect(installState(root)).toBe('missing');
    rmSync(join(root, '..'), { recursive: true, force: true });
  }, 60_000);
});

describe('the bootstrap install step: progress that moves, real errors shown', () => {
  // A stand-in for npm that talks like npm ci does on this machine's older Node.
  function fakeNpm(exitCode: number): { npm: string; args: string } {
    const dir = folder('fake-npm-');
    const args = join(dir, 'args');
    const npm = join(dir, 'npm');
    writeFileSync(
      npm,
      [
        '#!/bin/sh',
        `echo "$@" > '${args}'`,
        ...Array.from({ length: 40 }, (_, i) => `echo "npm warn EBADENGINE Unsupported engine { package: 'pkg-${i}@1.0.0', required: { node: '>=22' } }" >&2`),
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

  it('prints "[setup] dependencies (npm ci) ..." and its result on success, and asks npm for errors only', async () => {
    const { npm, args } = fakeNpm(0);
    const out = capture();
    expect(await installDependencies(folder('root-'), 'missing', { npm, stderr: out.stream as never })).toBe(0);
    expect(out.text()).toMatch(/^\[setup\] dependencies \(npm ci\) \.\.\.\n\[setup\] dependencies \(npm ci\) \.\.\. 0 packages, 0 MB, \d+ s\n$/);
    expect(readFileSync(args, 'utf8').trim()).toBe('ci --no-fund --no-audit --loglevel=error');
  });

  it('ticks while npm runs with figures that move: packages unpacked of those the lock installs, and megabytes landed', async () => {
    // As npm ci does: every package folder first, empty (the count of folders stands still for
    // the whole download), then each filled as its tarball arrives. The lock names 30 packages
    // and one optional package for another platform, which npm leaves out.
    const root = folder('root-');
    const names = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? `@scope/pkg-${i}` : `pkg-${i}`));
    const lockPackages: Record<string, unknown> = { '': { name: 'x', version: '1.0.0', dependencies: Object.fromEntries(names.map((n) => [n, '1.0.0'])), optionalDependencies: { 'other-os': '1.0.0' } } };
    for (const name of names) lockPackages[`node_modules/${name}`] = { version: '1.0.0' };
    lockPackages['node_modules/other-os'] = { version: '1.0.0', optional: true, os: ['plan9'] };
    writeJson(join(root, 'package-lock.json'), { name: 'x', lockfileVersion: 3, packages: lockPackages });
    const npm = join(folder('fake-npm-'), 'npm');
    writeFileSync(
      npm,
      [
        '#!/bin/sh',
        ...names.map((n) => `mkdir -p node_modules/${n}`),
        ...names.map((n) => `echo '{}' > node_modules/${n}/package.json; head -c 300000 /dev/zero > node_modules/${n}/index.js; sleep 0.1`),
        'sleep 0.5',
      ].join('\n'),
      { mode: 0o755 },
    );
    const out = capture();
    expect(await installDependencies(root, 'missing', { npm, stderr: out.stream as never, tickMs: 400 })).toBe(0);
    const lines = out.text().trim().split('\n');
    const ticks = lines.slice(1, -1).map((line) => /^\[setup\] {3}still installing \(\d+ s\): (\d+) of 30 packages unpacked, (\d+) MB \(npm has read \d+ MB\)(; running install scripts)? \.\.\.$/.exec(line));
    expect({ ticks: lines.slice(1, -1), parsed: ticks.every(Boolean) }).toEqual({ ticks: lines.slice(1, -1), parsed: true });
    const unpacked = ticks.map((m) => Number(m![1]));
    const megabytes = ticks.map((m) => Number(m![2]));
    // Figures that move: at least three different counts, never going back, both figures rising.
    expect(new Set(unpacked).size).toBeGreaterThanOrEqual(3);
    expect(unpacked).toEqual([...unpacked].sort((a, b) => a - b));
    expect(megabytes.at(-1)!).toBeGreaterThan(megabytes[0]!);
    expect(lines.at(-1)).toMatch(/^\[setup\] dependencies \(npm ci\) \.\.\. 30 packages, 9 MB, \d+ s$/);
  });

  it("says how much npm has read in its first phase, before anything lands in node_modules", async () => {
    // npm reading (the registry, its cache) for a while, writing nothing yet.
    const npm = join(folder('fake-npm-'), 'npm');
    writeFileSync(
      npm,
      [
        '#!/usr/bin/env node',
        "const fs = require('node:fs');",
        "const zero = fs.openSync('/dev/zero', 'r');",
        'const chunk = Buffer.alloc(3_000_000);',
        'let rounds = 0;',
        'const timer = setInterval(() => { fs.readSync(zero, chunk); if (++rounds === 20) clearInterval(timer); }, 100);',
      ].join('\n'),
      { mode: 0o755 },
    );
    const out = capture();
    expect(await installDependencies(folder('root-'), 'missing', { npm, stderr: out.stream as never, tickMs: 400 })).toBe(0);
    const reads = out.text().trim().split('\n').slice(1, -1).map((line) => Number(/^\[setup\] {3}still installing \(\d+ s\): 0 of 0 packages unpacked, 0 MB \(npm has read (\d+) MB\) \.\.\.$/.exec(line)?.[1]));
    expect(reads.length).toBeGreaterThanOrEqual(3);
    expect(reads.every((r) => Number.isInteger(r))).toBe(true);
    expect(new Set(reads).size).toBeGreaterThanOrEqual(3);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));
  });

  it('on failure shows everything npm said, and its exit status', async () => {
    const { npm } = fakeNpm(3);
    const out = capture();
    expect(await installDependencies(folder('root-'), 'stale', { npm, stderr: out.stream as never })).toBe(3);
    expect(out.text()).toMatch(/^\[setup\] dependencies changed: npm ci \.\.\.\n\[setup\] dependencies changed: npm ci \.\.\. failed after \d+ s\n/);
    expect(out.text()).toContain('npm error 404 Not Found');
    expect(out.text()).toContain('[setup] npm ci failed; see the output above.');
  });
});

/**
 * scripts/bootstrap.mjs itself, in a project of its own: its two files, a lock with one package
 * (the `node` dev dependency), a stand-in npm on PATH that installs it the way npm ci does (the
 * package, its bin, npm's record in node_modules/.package-lock.json) after a second, and a
 * stand-in `node` bin that writes down what the launcher is handed, and what signals reach it.
 */
function bootstrapProject() {
  const dir = folder('bootstrap-');
  const root = join(dir, 'root');
  const out = join(dir, 'out');
  mkdirSync(join(root, 'scripts'), { recursive: true });
  mkdirSync(out);
  for (const file of ['bootstrap.mjs', 'install-state.mjs']) copyFileSync(join(projectRoot, 'scripts', file), join(root, 'scripts', file));
  const nodeEntry = { version: '1.0.0', dev: true, bin: { node: 'bin/node' } };
  writeJson(join(root, 'package.json'), { name: 'app', version: '1.0.0', devDependencies: { node: '1.0.0' } });
  writeJson(join(root, 'package-lock.json'), { name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', version: '1.0.0', devDependencies: { node: '1.0.0' } }, 'node_modules/node': nodeEntry } });
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const fakeNode = [
    '#!/bin/sh',
    `echo "$SHADE_OFFICE_LAUNCHED_AT $SHADE_OFFICE_INSTALL_MS $(ps -o pgid= -p $$ | tr -d ' ') $$ $*" > '${out}/launched'`,
    '[ -z "$FAKE_NODE_WAITS" ] && exit 0',
    `trap 'echo INT >> "${out}/signals"; exit 0' INT`,
    `trap 'echo HUP >> "${out}/signals"; exit 0' HUP`,
    'while :; do sleep 0.05; done',
  ].join('\n');
  writeFileSync(
    join(bin, 'npm'),
    [
      '#!/bin/sh',
      `echo "$@" >> '${out}/npm-runs'`,
      'sleep 1',
      'mkdir -p node_modules/node/bin node_modules/.bin',
      `echo '{"name":"node","version":"1.0.0","bin":{"node":"bin/node"}}' > node_modules/node/package.json`,
      `cat > node_modules/node/bin/node <<'EOF'\n${fakeNode}\nEOF`,
      'chmod +x node_modules/node/bin/node',
      'ln -sf ../node/bin/node node_modules/.bin/node',
      `echo '${JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { 'node_modules/node': nodeEntry } })}' > node_modules/.package-lock.json`,
    ].join('\n'),
    { mode: 0o755 },
  );
  const env = (extra: NodeJS.ProcessEnv = {}) => ({ ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, ...extra });
  const run = (command: string, options: { detached?: boolean; env?: NodeJS.ProcessEnv } = {}) => {
    let output = '';
    const child = spawn(process.execPath, [join(root, 'scripts', 'bootstrap.mjs'), command], { cwd: root, env: env(options.env), detached: options.detached ?? false, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  };
  const launched = () => {
    const [at, installMs, pgid, pid, ...args] = readFileSync(join(out, 'launched'), 'utf8').trim().split(' ');
    return { at: Number(at), installMs: Number(installMs), pgid: Number(pgid), pid: Number(pid), args: args.join(' ') };
  };
  const npmRuns = () => (existsSync(join(out, 'npm-runs')) ? readFileSync(join(out, 'npm-runs'), 'utf8').trim().split('\n') : []);
  return { dir, root, out, run, launched, npmRuns, npmInRoot: () => execFileSync(join(bin, 'npm'), ['ci'], { cwd: root }) };
}

describe('scripts/bootstrap.mjs', () => {
  it('installs on a fresh clone and counts the install in the ready time: the launcher gets the moment the command began and the install time', async () => {
    const project = bootstrapProject();
    const before = Date.now();
    const first = project.run('start');
    expect(await first.exited).toBe(0);
    expect(project.npmRuns()).toEqual(['ci --no-fund --no-audit --loglevel=error']);
    const launched = project.launched();
    expect(launched.args).toBe('--import tsx scripts/start.ts');
    // The moment this process began (not the launcher's start, after the install).
    expect(launched.at).toBeGreaterThanOrEqual(before - 5);
    expect(launched.at).toBeLessThan(before + 3000);
    expect(launched.installMs).toBeGreaterThanOrEqual(1000);

    // The next start installs nothing, and says so to the launcher.
    const second = project.run('start');
    expect(await second.exited).toBe(0);
    expect(project.npmRuns()).toHaveLength(1);
    expect(project.launched().installMs).toBe(0);
    rmSync(project.dir, { recursive: true, force: true });
  }, 30_000);

  it('does not run npm ci again after the user ran it in the same clone', async () => {
    const project = bootstrapProject();
    project.npmInRoot();
    const start = project.run('start');
    expect(await start.exited).toBe(0);
    expect({ npmRuns: project.npmRuns(), output: start.output() }).toEqual({ npmRuns: ['ci'], output: '' });
    expect(project.launched().installMs).toBe(0);
    rmSync(project.dir, { recursive: true, force: true });
  }, 30_000);

  it('never runs npm ci through a node_modules that is a link to a shared install (npm ci would empty what it points to)', async () => {
    const project = bootstrapProject();
    const shared = join(project.dir, 'shared-node-modules');
    mkdirSync(join(shared, 'some-package'), { recursive: true });
    writeFileSync(join(shared, 'some-package', 'package.json'), '{}');
    symlinkSync(shared, join(project.root, 'node_modules'));
    const start = project.run('start');
    expect(await start.exited).toBe(1);
    expect(project.npmRuns()).toEqual([]);
    expect(start.output()).toContain(`[setup] node_modules is a link to ${shared}, which does not match package.json and package-lock.json here.`);
    expect(readdirSync(shared)).toEqual(['some-package']);
    expect(lstatSync(join(project.root, 'node_modules')).isSymbolicLink()).toBe(true);
    rmSync(project.dir, { recursive: true, force: true });
  }, 30_000);

  it("runs npm start's launcher in a process group of its own: the terminal's Ctrl-C reaches it once, through bootstrap, which forwards a closed terminal's SIGHUP too", async () => {
    const project = bootstrapProject();
    project.npmInRoot();
    // As a shell runs a command: a process group of its own, the terminal's foreground group,
    // which Ctrl-C signals as a whole.
    const start = project.run('start', { detached: true, env: { FAKE_NODE_WAITS: '1' } });
    await waitUntil('the launcher', () => existsSync(join(project.out, 'launched')), { timeoutMs: 15_000 });
    const launcher = project.launched();
    waiting.push(launcher.pid);
    expect(launcher.pgid).not.toBe(start.child.pid);
    expect(launcher.pgid).toBe(launcher.pid);
    process.kill(-start.child.pid!, 'SIGINT');
    expect(await start.exited).toBe(0);
    expect(readFileSync(join(project.out, 'signals'), 'utf8')).toBe('INT\n');

    rmSync(join(project.out, 'launched'));
    rmSync(join(project.out, 'signals'));
    const again = project.run('start', { detached: true, env: { FAKE_NODE_WAITS: '1' } });
    await waitUntil('the launcher', () => existsSync(join(project.out, 'launched')), { timeoutMs: 15_000 });
    waiting.push(project.launched().pid);
    process.kill(again.child.pid!, 'SIGHUP');
    expect(await again.exited).toBe(0);
    expect(readFileSync(join(project.out, 'signals'), 'utf8')).toBe('HUP\n');
    rmSync(project.dir, { recursive: true, force: true });
  }, 30_000);
});
