// Whether node_modules matches package.json and package-lock.json, and `npm ci` with progress.
// Plain JavaScript with built-ins only: bootstrap.mjs runs it before dependencies (and Node 24)
// exist.
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** npm's own record of what it installed (`npm ci` and `npm install` write it, whoever ran them). */
const HIDDEN_LOCKFILE = join('node_modules', '.package-lock.json');
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** JSON with its object keys sorted: two records that say the same thing compare equal. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  return JSON.stringify(value);
}

/**
 * 'missing' (nothing installed yet), 'stale' (node_modules does not hold what the lock says, or
 * package.json asks for dependencies the lock does not record) or 'current'.
 *
 * node_modules is compared with npm's own record of it, `node_modules/.package-lock.json`, which
 * every `npm ci` or `npm install` writes, whether this script or the user ran it: an install the
 * user just made is current, and no file of ours has to say so. Current means every package of
 * the lock is installed exactly as the lock records it (version, resolved, integrity, ...),
 * except optional ones npm leaves out on this platform, nothing else is installed (and each
 * package npm recorded in node_modules still has its folder), and package.json's dependency
 * fields are the lock's. Other changes to package.json (its scripts,
 * say) need no install.
 */
export function installState(root) {
  const hidden = readJson(join(root, HIDDEN_LOCKFILE));
  if (!hidden?.packages || !existsSync(join(root, 'node_modules', '.bin', 'node'))) {
    return existsSync(join(root, 'node_modules')) && readdirSync(join(root, 'node_modules')).some((name) => !name.startsWith('.')) ? 'stale' : 'missing';
  }
  const lock = readJson(join(root, 'package-lock.json'));
  const manifest = readJson(join(root, 'package.json'));
  if (!lock?.packages || !manifest) return 'stale';
  const rootEntry = lock.packages[''] ?? {};
  for (const field of DEPENDENCY_FIELDS) if (canonical(manifest[field] ?? {}) !== canonical(rootEntry[field] ?? {})) return 'stale';
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '') continue;
    const installed = hidden.packages[path];
    if (installed === undefined ? !entry.optional : canonical(installed) !== canonical(entry)) return 'stale';
  }
  for (const [path, entry] of Object.entries(hidden.packages)) {
    if (!(path in lock.packages)) return 'stale';
    // A package folder removed by hand since: npm's record no longer says what is there. Only
    // node_modules/ itself is looked at: a local package's own node_modules (scripts/openapi-client)
    // is not where a checkout sharing another's node_modules through a link has it.
    if (!entry.link && path.startsWith('node_modules/') && !existsSync(join(root, path, 'package.json'))) return 'stale';
  }
  return 'current';
}

let libc;
/** glibc or musl, as npm tells them apart: from the running Node's report. */
const libcFamily = () => (libc ??= process.report?.getReport?.().header?.glibcVersionRuntime ? 'glibc' : 'musl');
const platformFits = (entry) =>
  (!entry.os || entry.os.includes(process.platform)) &&
  (!entry.cpu || entry.cpu.includes(process.arch)) &&
  (!entry.libc || process.platform !== 'linux' || entry.libc.includes(libcFamily()));

/**
 * The lock's packages that `npm ci` installs on this machine: every one reached from the project
 * through dependencies, leaving out those made for another platform (and what only they need).
 * Each is named by its folder (`node_modules/a/node_modules/b`); links are left out (nothing to
 * unpack). The denominator of the install's progress.
 */
export function packagesToInstall(lock) {
  const packages = lock?.packages ?? {};
  const resolve = (from, name) => {
    // Node's lookup: the nearest node_modules/<name> from the dependent's folder upwards.
    for (let base = from; ; ) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!base) return undefined;
      const at = base.lastIndexOf('/node_modules/');
      base = at < 0 ? '' : base.slice(0, at);
    }
  };
  const wanted = new Set();
  const queue = [''];
  while (queue.length > 0) {
    const from = queue.shift();
    const entry = packages[from] ?? {};
    for (const field of DEPENDENCY_FIELDS) {
      for (const name of Object.keys(entry[field] ?? {})) {
        const path = resolve(from, name);
        if (!path || wanted.has(path)) continue;
        const target = packages[path];
        if (target.link) {
          if (target.resolved && packages[target.resolved] && !wanted.has(target.resolved)) {
            wanted.add(target.resolved);
            queue.push(target.resolved);
          }
          continue;
        }
        if (!platformFits(target)) continue;
        wanted.add(path);
        queue.push(path);
      }
    }
  }
  return [...wanted].filter((path) => path.startsWith('node_modules/') || path.includes('/node_modules/'));
}

/** Bytes under a folder (files and links as they are on disk, not followed). */
function bytesUnder(folder) {
  let total = 0;
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else {
      try {
        total += lstatSync(path).size;
      } catch {
        // removed meanwhile
      }
    }
  }
  return total;
}

/**
 * What has landed so far: packages unpacked (a package's folder holds its package.json; npm
 * creates every folder at once, empty, then fills them as their tarballs arrive) out of those
 * the lock will install here, and the megabytes node_modules holds.
 */
export function installProgress(root, expected) {
  const unpacked = expected.filter((path) => existsSync(join(root, path, 'package.json'))).length;
  return { unpacked, total: expected.length, megabytes: Math.round(bytesUnder(join(root, 'node_modules')) / 1e6) };
}

/**
 * Megabytes a process has read so far, from the network and from files alike (Linux's
 * /proc/<pid>/io, `rchar`): what npm has taken in before anything lands in node_modules (its
 * first phase writes nothing there). Undefined where the system does not say.
 */
function megabytesRead(pid) {
  try {
    const rchar = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1];
    return rchar === undefined ? undefined : Math.round(Number(rchar) / 1e6);
  } catch {
    return undefined;
  }
}

/**
 * `npm ci` as a set-up step with its measured time: `[setup] dependencies (npm ci) ...`, and
 * while it runs a line every `tickMs` with how long it has run, how many of the packages are
 * unpacked and how many megabytes have landed (both move as the tarballs arrive; once every
 * package is unpacked, the line says install scripts run), and how much npm has read (which
 * moves in its first phase too, before anything lands), so a fresh clone's first minutes never
 * look stuck. It ends with `[setup] dependencies (npm ci) ... 1090 packages, 928 MB, 83 s`.
 * npm runs on the machine's Node, which may be older than the engines field asks (the `node` dev
 * dependency brings Node 24 for everything after this step), so its warnings (an EBADENGINE
 * block per package that wants a newer Node, unknown user config) say nothing useful here:
 * `--loglevel=error` drops them and the rest of npm's output is held back. On failure everything
 * npm printed is shown, then its exit status is returned.
 */
export function installDependencies(root, state, { npm = 'npm', stderr = process.stderr, tickMs = 15_000 } = {}) {
  const label = state === 'stale' ? 'dependencies changed: npm ci' : 'dependencies (npm ci)';
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;
  const expected = packagesToInstall(readJson(join(root, 'package-lock.json')));
  stderr.write(`[setup] ${label} ...\n`);
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(npm, ['ci', '--no-fund', '--no-audit', '--loglevel=error'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const ticker = setInterval(() => {
      const { unpacked, total, megabytes } = installProgress(root, expected);
      const stage = total > 0 && unpacked >= total ? '; running install scripts' : '';
      const read = megabytesRead(child.pid);
      stderr.write(`[setup]   still installing (${elapsed()}): ${unpacked} of ${total} packages unpacked, ${megabytes} MB${read === undefined ? '' : ` (npm has read ${read} MB)`}${stage} ...\n`);
    }, tickMs);
    const finish = (status, error) => {
      clearInterval(ticker);
      if (status !== 0) {
        stderr.write(`[setup] ${label} ... failed after ${elapsed()}\n`);
        stderr.write(`${output}${error ? `${error.message}\n` : ''}`);
        stderr.write('[setup] npm ci failed; see the output above.\n');
        resolve(status ?? 1);
        return;
      }
      const { unpacked, megabytes } = installProgress(root, expected);
      stderr.write(`[setup] ${label} ... ${unpacked} packages, ${megabytes} MB, ${elapsed()}\n`);
      resolve(0);
    };
    child.on('error', (error) => finish(1, error));
    child.on('exit', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}
