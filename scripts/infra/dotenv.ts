import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './paths';

/** D8: settings come from the environment, with a .env file in development. */
export function loadDotEnv(): void {
  const file = join(projectRoot, '.env');
  if (existsSync(file)) process.loadEnvFile(file);
}
