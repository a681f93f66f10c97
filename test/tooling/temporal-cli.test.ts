import { describe, expect, it } from '@jest/globals';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_MODULE, ensureTemporalCli } from '../../scripts/infra/temporal-cli';

const temp = () => mkdtempSync(join(tmpdir(), 'temporal-cli-'));

function executable(path: string, script: string): string {
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}

describe('finding or building the Temporal CLI', () => {
  it('prefers TEMPORAL_CLI, then PATH, then the machine cache', async () => {
    const bin = temp();
    const cache = temp();
    executable(join(bin, 'temporal'), '#!/bin/sh\n');
    executable(join(cache, 'temporal'), '#!/bin/sh\n');
    expect(await ensureTemporalCli({ explicit: '/opt/temporal', path: bin, cacheDir: cache })).toBe('/opt/temporal');
    expect(await ensureTemporalCli({ explicit: undefined, path: bin, cacheDir: cache })).toBe(join(bin, 'temporal'));
    expect(await ensureTemporalCli({ explicit: undefined, path: '', cacheDir: cache })).toBe(join(cache, 'temporal'));
  });

  it('builds it with go install into the cache, saying so and showing progress', async () => {
    const dir = temp();
    const cache = join(dir, 'cache');
    const argsFile = join(dir, 'args');
    // A stand-in for Go that takes a moment, prints like Go, and leaves a binary in GOBIN.
    const go = executable(
      join(dir, 'go'),
      `#!/bin/sh\nif [ "$1" = version ]; then echo "go version go1.26 linux/amd64"; exit 0; fi\n` +
        `echo "$@" > ${argsFile}\necho "go: downloading github.com/temporalio/cli v1.5.1" >&2\nsleep 0.5\n` +
        `printf '#!/bin/sh\\n' > "$GOBIN/temporal"\nchmod +x "$GOBIN/temporal"\n`,
    );
    const messages: string[] = [];
    const path = await ensureTemporalCli({ explicit: undefined, path: '', cacheDir: cache, goCandidates: [join(dir, 'missing-go'), go], progressEveryMs: 100, log: (m) => messages.push(m) });
    expect(path).toBe(join(cache, 'temporal'));
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(argsFile, 'utf8').trim()).toBe(`install ${CLI_MODULE}`);
    expect(messages[0]).toContain('building the Temporal CLI');
    expect(messages.some((m) => m.includes('once per machine'))).toBe(true);
    expect(messages.some((m) => m.includes('still building'))).toBe(true);
    expect(messages[messages.length - 1]).toMatch(/built in \d+ s/);
  });

  it('says what to do when there is neither a CLI nor Go', async () => {
    const cache = temp();
    mkdirSync(cache, { recursive: true });
    await expect(ensureTemporalCli({ explicit: undefined, path: '', cacheDir: cache, goCandidates: ['/nonexistent/go'] })).rejects.toThrow(/TEMPORAL_ADDRESS/);
  });
});
