// `npm run ops` without tsx: scripts/ops.ts and our modules it imports, bundled by esbuild into
// a git-ignored folder (.data/ops/) that plain node runs. tsx transpiled every module of
// the command on each call (6-11 s a call on a busy machine); the bundle is built on the first
// call, and again when one of its sources (or this file) is newer than it, in about a second.
// Packages stay outside it (node_modules, as the sources import them). Plain JavaScript,
// built-ins only (esbuild is loaded only to build): it runs on the Node that runs npm.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'scripts', 'ops.ts');
const folder = join(root, '.data', 'ops');
/**
 * Which build is current: `{ "entry": "<build>/ops.mjs", "inputs": [sources, relative to the
 * project] }`, replaced in one rename once a build is complete (so a concurrent call reads either
 * the old build or the new one, whole). Each build is a folder of its own: the entry and the
 * chunks that each command loads when it runs (esbuild's code splitting).
 */
const currentFile = join(folder, 'current.json');

const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
};

function current() {
  try {
    return JSON.parse(readFileSync(currentFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether there is no build, or one older than this file or than any source it was built from (one of them gone included). */
export function opsBundleStale() {
  const build = current();
  const built = build && mtime(join(folder, build.entry));
  if (built === undefined) return true;
  return [fileURLToPath(import.meta.url), ...build.inputs.map((input) => join(root, input))].some((file) => {
    const changed = mtime(file);
    return changed === undefined || changed > built;
  });
}

/**
 * Each module keeps its own `import.meta.url` (its source file's), as under tsx: the project root,
 * the salesforce client's require and the like are found from where the source is, not from
 * where the bundle is.
 */
const ownImportMeta = {
  name: 'own-import-meta',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta')) return undefined;
      const url = JSON.stringify(pathToFileURL(args.path).href);
      const contents = source
        .replaceAll('import.meta.url', url)
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)));
      return { contents, loader: 'ts' };
    });
  },
};

/** Builds the bundle into a folder of its own, makes it current, and removes the builds before it. */
export async function buildOpsBundle() {
  const { build } = await import('esbuild');
  const name = `build-${Date.now()}-${process.pid}`;
  const result = await build({
    entryPoints: { ops: entry },
    outdir: join(folder, name),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    metafile: true,
    logLevel: 'warning',
    plugins: [ownImportMeta],
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) => relative(root, join(root, input)));
  writeFileSync(`${currentFile}.${process.pid}.tmp`, JSON.stringify({ entry: `${name}/ops.mjs`, inputs }));
  renameSync(`${currentFile}.${process.pid}.tmp`, currentFile);
  // Builds before this one, left a minute for a call still running from one to finish loading its chunks.
  for (const other of readdirSync(folder)) {
    const path = join(folder, other);
    if (other.startsWith('build-') && other !== name && (mtime(path) ?? 0) < Date.now() - 60_000) rmSync(path, { recursive: true, force: true });
  }
}

/** The entry of the current bundle, built first when stale. */
export async function currentOpsBundle() {
  if (opsBundleStale()) await buildOpsBundle();
  return join(folder, current().entry);
}

// Run as `node scripts/ops-bundle.mjs <ops arguments>` (npm run ops): the bundle, in this process.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await import(pathToFileURL(await currentOpsBundle()).href);
}
