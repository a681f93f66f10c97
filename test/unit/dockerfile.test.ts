import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../scripts/infra/paths';

// Docker cannot run on our machines; this reads the image's Dockerfile the way its build would.
const dockerfile = readFileSync(join(projectRoot, 'scripts', 'container', 'Dockerfile'), 'utf8').split('\n');
const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

describe('scripts/container/Dockerfile', () => {
  it('copies the manifest of every local (file:) dependency before npm ci, which links them', () => {
    const ci = dockerfile.findIndex((line) => /^RUN npm ci\b/.test(line));
    expect(ci).toBeGreaterThan(0);
    const copiedBefore = dockerfile.slice(0, ci).filter((line) => line.startsWith('COPY '));
    const local = Object.values({ ...manifest.dependencies, ...manifest.devDependencies })
      .filter((spec) => spec.startsWith('file:'))
      .map((spec) => spec.slice('file:'.length));
    expect(local.length).toBeGreaterThan(0);
    for (const folder of local) {
      expect({ folder, copied: copiedBefore.some((line) => line.includes(`${folder}/package.json`)) }).toEqual({ folder, copied: true });
    }
  });
});
