import { describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../../scripts/infra/paths';

// Docker cannot run on our machines; this reads the image's Dockerfile the way its build would,
// and runs its build step (tsc with the image's configuration) itself.
const dockerfile = readFileSync(join(projectRoot, 'scripts', 'container', 'Dockerfile'), 'utf8').split('\n');
const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const stages = dockerfile.reduce<string[][]>((all, line) => (line.startsWith('FROM ') ? [...all, [line]] : (all.at(-1)?.push(line), all)), []);
const finalStage = stages.at(-1)!;
const instructions = (stage: string[]) => stage.join('\n').replace(/\\\n\s*/g, ' ').split('\n').filter((l) => /^[A-Z]+ /.test(l));

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

  // Compiled, production dependencies only, not root.
  it('builds in one stage (tsc to dist/) and runs from another with production dependencies only, as a non-root user', () => {
    expect(stages).toHaveLength(2);
    expect(stages[0]![0]).toMatch(/^FROM node:24-[\w-]+ AS build$/);
    expect(instructions(stages[0]!).join('\n')).toContain('RUN node_modules/.bin/tsc -p scripts/container/tsconfig.build.json');
    // The workflows bundled in the build stage, after tsc, into dist/ (which the final stage copies).
    const build = instructions(stages[0]!);
    const bundling = build.indexOf('RUN node --import ./scripts/container/extensionless.mjs dist/worker/bundle-workflows.js');
    expect(bundling).toBeGreaterThan(build.findIndex((l) => l.startsWith('RUN node_modules/.bin/tsc ')));
    const final = instructions(finalStage);
    expect(final[0]).toMatch(/^FROM node:24-[\w-]+$/);
    expect(final).toContain('RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force');
    expect(final).toContain('COPY --from=build /app/dist ./dist');
    // No source tree, no TypeScript runner in the image that runs.
    expect(final.filter((l) => l.startsWith('COPY ') && / \. \.$/.test(l))).toEqual([]);
    expect(final.join('\n')).not.toMatch(/tsx|--include=dev/);
    const user = final.findIndex((l) => l.startsWith('USER '));
    expect(final[user]).toBe('USER node');
    expect(final.slice(user + 1).some((l) => /^(RUN|COPY|ADD) /.test(l))).toBe(false);
    // Production, listening where a proxy in front of the container reaches it (API_HOST's
    // default outside production is loopback).
    const environment = final.filter((l) => l.startsWith('ENV ')).flatMap((l) => l.slice(4).split(/\s+/));
    expect(environment).toEqual(expect.arrayContaining(['NODE_ENV=production', 'API_HOST=0.0.0.0']));
    // The same command line as docker-compose.yml's api service (its heap sized per replica).
    const composeApi = (parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8')) as { services: { api: { command: string[] } } }).services.api.command;
    expect(final.at(-1)).toBe(`CMD ${JSON.stringify(composeApi).replaceAll('","', '", "')}`);
    expect(composeApi).toEqual(['node', '--max-semi-space-size=1', '--max-old-space-size=160', '--import', './scripts/container/extensionless.mjs', '--import', './dist/infra/runtime/instrument.js', 'dist/api/main.js']);
  });

  it('has a .dockerignore that keeps development data, secrets, node_modules and git out of the build', () => {
    const ignored = readFileSync(join(projectRoot, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.data', 'node_modules', '.git', '.env', '.env.*', 'dist']));
  });

  it('compiles: the emitted JavaScript loads as the image runs it, assets included, and its workflows bundle into the files the compiled worker loads', () => {
    const outDir = join(projectRoot, '.data', `dist-check-${process.pid}`);
    try {
      execFileSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', 'scripts/container/tsconfig.build.json', '--outDir', outDir], { cwd: projectRoot, stdio: 'pipe' });
      // As the build stage does: every non-TypeScript file of the product folders beside the code.
      for (const folder of ['api', 'activities', 'infra', 'db', 'domain', 'worker', 'workflows']) {
        const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
        for (const file of walk(join(projectRoot, folder)).filter((f) => !f.endsWith('.ts'))) cpSync(file, join(outDir, relative(projectRoot, file)));
      }
      // As the build stage's last step does.
      const bundling = spawnSync(process.execPath, ['--import', './scripts/container/extensionless.mjs', join(outDir, 'worker', 'bundle-workflows.js')], { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      expect({ status: bundling.status, stderr: bundling.stderr.slice(-2000) }).toEqual({ status: 0, stderr: '' });
      const check = `
        const app = await import('${outDir}/api/app.js');
        const worker = await import('${outDir}/worker/create-worker.js');
        const { migrations } = await import('${outDir}/db/migrations/index.js');
        await import('${outDir}/infra/runtime/instrument.js');
        const { prebuiltBundle } = await import('${outDir}/worker/workflow-bundle.js');
        const { readFileSync } = await import('node:fs');
        const prebuilt = [prebuiltBundle(false), prebuiltBundle(true)];
        const sizes = prebuilt.map((path) => readFileSync(path, 'utf8').length);
        // OpenTelemetry's workflow interceptors are in the bundle for tracing only.
        const otel = prebuilt.map((path) => readFileSync(path, 'utf8').includes('interceptors-opentelemetry/lib/workflow-interceptors'));
        console.log(JSON.stringify({ createApp: typeof app.createApp, workflows: worker.WORKFLOWS_PATH, migrations: migrations.length, prebuilt, bundled: sizes.every((n) => n > 0), otel }));
      `;
      const run = spawnSync(process.execPath, ['--import', './scripts/container/extensionless.mjs', '--input-type=module', '-e', check], { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      expect({ status: run.status, stderr: run.stderr.slice(-2000) }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toEqual({
        createApp: 'function',
        workflows: join(outDir, 'workflows', 'index.js'),
        migrations: expect.any(Number),
        prebuilt: [join(outDir, 'workflow-bundles', 'workflows.js'), join(outDir, 'workflow-bundles', 'workflows-tracing.js')],
        bundled: true,
        otel: [false, true],
      });
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 240_000);
});
