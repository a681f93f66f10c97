import { existsSync, mkdirSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { toolCacheDir } from './paths';
import { say } from './log';

export interface GoToolLookup {
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
 * A command-line tool published as a Go module: the explicit path, then PATH, then the
 * per-machine tool cache; otherwise built once into that cache with `go install` (minutes),
 * showing Go's progress and a line every few seconds so nobody stares at a silent terminal.
 */
export async function ensureGoTool(tool: { binary: string; module: string; purpose: string; missing: string }, lookup: GoToolLookup = {}): Promise<string> {
  const log = lookup.log ?? say;
  const cacheDir = lookup.cacheDir ?? toolCacheDir;
  if (lookup.explicit) return lookup.explicit;
  const cached = join(cacheDir, tool.binary);
  const found = onPath(tool.binary, lookup.path ?? process.env.PATH ?? '') ?? (existsSync(cached) ? cached : undefined);
  if (found) return found;

  const go = findGo(lookup.goCandidates ?? ['go', '/usr/local/go/bin/go']);
  if (!go) throw new Error(`${tool.purpose} is not installed and Go is not available to build it. ${tool.missing}`);
  mkdirSync(cacheDir, { recursive: true });
  log(`building ${tool.purpose} (${tool.module}) with Go into ${cacheDir}`);
  log('this happens once per machine and takes a few minutes; Go prints each module it fetches:');
  const started = Date.now();
  const ticker = setInterval(() => log(`  still building ${tool.purpose} (${Math.round((Date.now() - started) / 1000)} s) ...`), lookup.progressEveryMs ?? 15_000);
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(go, ['install', tool.module], { env: { ...process.env, GOBIN: cacheDir }, stdio: ['ignore', 'inherit', 'inherit'] });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`go install ${tool.module} exited with ${code}`))));
    });
  } finally {
    clearInterval(ticker);
  }
  if (!existsSync(cached)) throw new Error(`go install finished but ${cached} is missing`);
  log(`${tool.purpose} built in ${Math.round((Date.now() - started) / 1000)} s`);
  return cached;
}
