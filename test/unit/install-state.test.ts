import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installState, recordInstall } from '../../scripts/install-state.mjs';

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
});
