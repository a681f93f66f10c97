import { existsSync, mkdirSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { toolCacheDir } from './paths';
import { say } from './log';

/** The newest Temporal CLI that `go install` can build (later ones cannot be built that way). */
const CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';
const GO_CANDIDATES = ['go', '/usr/local/go/bin/go'];

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function findGo(): string | undefined {
  for (const candidate of GO_CANDIDATES) {
    if (spawnSync(candidate, ['version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

/**
 * Finds the `temporal` CLI: $TEMPORAL_CLI, then PATH, then the per-machine tool cache; builds it
 * into the cache with Go when none is found (minutes, once per machine), showing Go's progress.
 */
export async function ensureTemporalCli(): Promise<string> {
  const explicit = process.env.TEMPORAL_CLI;
  if (explicit) return explicit;
  const found = onPath('temporal') ?? (existsSync(join(toolCacheDir, 'temporal')) ? join(toolCacheDir, 'temporal') : undefined);
  if (found) return found;

  const go = findGo();
  if (!go) {
    throw new Error(
      'The Temporal CLI is not installed and Go is not available to build it. Install the CLI ' +
        '(https://docs.temporal.io/cli) and put it on PATH, or set TEMPORAL_ADDRESS to a running server.',
    );
  }
  mkdirSync(toolCacheDir, { recursive: true });
  say(`building the Temporal CLI with Go into ${toolCacheDir}`);
  say('this happens once per machine and takes a few minutes; Go prints each module it fetches:');
  const started = Date.now();
  const ticker = setInterval(() => say(`  still building the Temporal CLI (${Math.round((Date.now() - started) / 1000)} s) ...`), 15_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', CLI_MODULE], {
        env: { ...process.env, GOBIN: toolCacheDir, GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${CLI_MODULE} exited with ${code}`))));
    });
  } finally {
    clearInterval(ticker);
  }
  say(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s`);
  return join(toolCacheDir, 'temporal');
}
