import { join } from 'node:path';
import { run } from './processes';
import { projectRoot } from './paths';

/**
 * Jest on this Node (24), as `npm test` and `npm run test:unit` run it: native ES modules
 * (MikroORM 7 and jose are ESM-only) need the VM-modules flag, and the tests run quiet unless
 * LOG_LEVEL says otherwise. `env` adds what the caller provides (the stack's addresses).
 */
export function runJest(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  const ci = process.env.CI === 'true' ? ['--ci'] : [];
  return run(process.execPath, [join(projectRoot, 'node_modules', 'jest', 'bin', 'jest.js'), ...ci, ...args], {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...env,
    NODE_OPTIONS: [process.env.NODE_OPTIONS, '--experimental-vm-modules', '--no-warnings=ExperimentalWarning'].filter(Boolean).join(' '),
  });
}
