import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The folders the checks read: the product, its tools and its tests. */
export const CHECKED_FOLDERS = ['api', 'activities', 'infra', 'workflows', 'worker', 'db', 'domain', 'scripts', 'bench', 'test'] as const;

export interface CheckResult {
  ok: boolean;
  output: string;
}

function capture(command: string, args: string[], cwd: string): Promise<CheckResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ok: code === 0, output }));
  });
}

/**
 * The layer rules (scripts/lint/dependency-rules.cjs) over `folders` of the tree at `root`, by
 * dependency-cruiser. `rulesRoot` is where the rules and the tools live (the project itself).
 */
export function checkLayers(options: { root: string; rulesRoot: string; folders: readonly string[] }): Promise<CheckResult> {
  return capture(
    join(options.rulesRoot, 'node_modules', '.bin', 'depcruise'),
    ['--config', join(options.rulesRoot, 'scripts', 'lint', 'dependency-rules.cjs'), '--output-type', 'err', ...options.folders],
    options.root,
  );
}

/**
 * Promises that nobody awaits (and their kin) by oxlint's type-aware rules, which run on
 * TypeScript 7 (typescript-eslint does not yet). Rules: scripts/lint/oxlintrc.json.
 */
export function checkPromises(options: { root: string; rulesRoot: string; paths: readonly string[] }): Promise<CheckResult> {
  return capture(
    join(options.rulesRoot, 'node_modules', '.bin', 'oxlint'),
    ['--type-aware', '--quiet', '-c', join(options.rulesRoot, 'scripts', 'lint', 'oxlintrc.json'), ...options.paths],
    options.root,
  );
}
