import { existsSync, mkdirSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { toolCacheDir } from './paths';
import { say } from './log';

/** The newest Temporal CLI that `go install` can build (later ones cannot be built that way). */
export const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export interface CliLookup {
  explicit?: string | undefined;
  path?: string | undefined;
  cacheDir?: string;
  goCandidates?: string[];
  progressEveryMs?: number;
  log?: (message: string) => void;
}

function onPath(name: string, pathEnv: string): string | undefined {
  for (const dir of pathEnv.split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function findGo(candidates: string[]): string | undefined {
  return candidates.find((candidate) => spawnSync(candidate, ['version'], { stdio: 'ignore' }).status === 0);
}

/**
 * Finds the `temporal` CLI: $TEMPORAL_CLI, then PATH, then the per-machine tool cache; builds it
 * into the cache with Go when none is found (minutes, once per machine), showing Go's progress
 * and a line every few seconds so nobody stares at a silent terminal.
 */
export async function ensureTemporalCli(lookup: CliLookup = {}): Promise<string> {
  const log = lookup.log ?? say;
  const cacheDir = lookup.cacheDir ?? toolCacheDir;
  const explicit = 'explicit' in lookup ? lookup.explicit : process.env.TEMPORAL_CLI;
  if (explicit) return explicit;
  const cached = join(cacheDir, 'temporal');
  const found = onPath('temporal', lookup.path ?? process.env.PATH ?? '') ?? (existsSync(cached) ? cached : undefined);
  if (found) return found;

  const go = findGo(lookup.goCandidates ?? ['go', '/usr/local/go/bin/go']);
  if (!go) {
    throw new Error(
      'The Temporal CLI is not installed and Go is not available to build it. Install the CLI ' +
        '(https://docs.temporal.io/cli) and put it on PATH, or set TEMPORAL_ADDRESS to a running server.',
    );
  }
  mkdirSync(cacheDir, { recursive: true });
  log(`building the Temporal CLI (${CLI_MODULE}) with Go into ${cacheDir}`);
  log('this happens once per machine and takes a few minutes; Go prints each module it fetches:');
  const started = Date.now();
  const ticker = setInterval(() => log(`  still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s) ...`), lookup.progressEveryMs ?? 15_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', CLI_MODULE], { env: { ...process.env, GOBIN: cacheDir }, stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${CLI_MODULE} exited with ${code}`))));
    });
  } finally {
    clearInterval(ticker);
  }
  if (!existsSync(cached)) throw new Error(`go install finished but ${cached} is missing`);
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s`);
  return cached;
}
