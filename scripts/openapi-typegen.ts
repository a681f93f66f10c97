import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from './infra/paths';

/** Where the generated types of the API live (committed; npm run openapi:types writes them). */
export const TYPES_FILE = join(projectRoot, 'test', 'client', 'api-types.ts');

/**
 * The API's TypeScript types from an OpenAPI document, by openapi-typescript. It runs in its own
 * process from scripts/openapi-client, a package of its own because it needs the TypeScript 5
 * compiler API, which the project's TypeScript 7 does not have.
 */
export function generateClientTypes(document: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(projectRoot, 'scripts', 'openapi-client', 'generate.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`openapi-typescript exited with ${code}`))));
    child.stdin.end(JSON.stringify(document));
  });
}
