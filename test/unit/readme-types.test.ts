import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../scripts/openapi-document';
import { generateClientTypes } from '../../scripts/openapi-typegen';
import { projectRoot } from '../../scripts/infra/paths';
import { readmeRequests, type ReadmeRequest } from '../support/readme-requests';

/**
 * What an integrator does first: generate types from /openapi.json with a stock openapi-typescript
 * run (no options) and paste the README's requests into an openapi-fetch client. Every request the
 * README makes to the API and expects to succeed is read from README.md itself (method, path,
 * query, body: test/support/readme-requests.ts) and written as a typed client call; `tsc` must
 * accept them all. A field with a default (`persist`, `dry_run`) is optional to send.
 */
const README = readFileSync(join(projectRoot, 'README.md'), 'utf8');
const API_ORIGIN = 'http://127.0.0.1:3000';
type Document = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

/** The document's path template a concrete path fills in (literal segments preferred), with its parameters. */
function operationOf(document: Document, request: ReadmeRequest): { template: string; params: Record<string, string> } | null {
  const matches = Object.keys(document.paths)
    .filter((template) => document.paths[template]![request.method.toLowerCase()])
    .flatMap((template) => {
      const names: string[] = [];
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{(\w+)\\?\}|\{(\w+)\}/g, (_m, a, b) => (names.push(a ?? b), '([^/]+)'))}$`);
      const found = pattern.exec(request.path);
      return found ? [{ template, params: Object.fromEntries(names.map((name, k) => [name, found[k + 1]!])), literal: template.split('/').filter((s) => !s.startsWith('{')).length }] : [];
    })
    .sort((a, b) => b.literal - a.literal);
  return matches[0] ?? null;
}

/** The README's successful API requests as openapi-fetch calls, one per README line. */
function clientCalls(document: Document): { source: string; calls: number } {
  const lines: string[] = [];
  const succeeding = readmeRequests(README).filter((r) => r.origin === API_ORIGIN && (r.expected === null || r.expected < 300));
  for (const request of succeeding) {
    const operation = operationOf(document, request);
    if (!operation) throw new Error(`README.md line ${request.line}: ${request.method} ${request.path} is no operation of the document`);
    const query = Object.fromEntries(Object.entries(request.query).map(([key, value]) => [key, /^\d+$/.test(value) ? Number(value) : value]));
    const params = { ...(Object.keys(operation.params).length ? { path: operation.params } : {}), ...(Object.keys(query).length ? { query } : {}) };
    const init = { ...(Object.keys(params).length ? { params } : {}), ...(request.body === undefined ? {} : { body: request.body }) };
    lines.push(`  // README.md line ${request.line}`, `  await client.${request.method}(${JSON.stringify(operation.template)}${Object.keys(init).length ? `, ${JSON.stringify(init)}` : ''});`);
  }
  const source = [
    "import createClient from 'openapi-fetch';",
    "import type { paths } from './api-types';",
    `const client = createClient<paths>({ baseUrl: ${JSON.stringify(API_ORIGIN)} });`,
    'export async function readme(): Promise<void> {',
    ...lines,
    '}',
    '',
  ].join('\n');
  return { source, calls: succeeding.length };
}

/** Stock types of `document`, the README's calls against them, and what tsc says. */
async function typeCheck(document: Document): Promise<{ status: number | null; output: string; calls: number }> {
  const dir = join(projectRoot, '.data', `readme-types-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, 'api-types.ts'), await generateClientTypes(document));
    const { source, calls } = clientCalls(document);
    writeFileSync(join(dir, 'readme-calls.ts'), source);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'es2024', module: 'preserve', moduleResolution: 'bundler', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['readme-calls.ts'] }),
    );
    const tsc = spawnSync(join(projectRoot, 'node_modules', '.bin', 'tsc'), ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    return { status: tsc.status, output: `${tsc.stdout}${tsc.stderr}`, calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the README's requests under types from a stock openapi-typescript run", () => {
  it('are read from README.md: every curl to the API, with its method, path, query and body', () => {
    const requests = readmeRequests(README).filter((r) => r.origin === API_ORIGIN);
    expect(requests.length).toBeGreaterThan(70);
    const calculate = requests.find((r) => r.method === 'POST' && r.path === '/api/v1/quotes/calculate');
    expect(calculate?.body).toMatchObject({ laborTierCode: 'STANDARD', lineItems: [{ reference: 'Living room' }, { reference: 'Bedroom' }] });
    // A body kept in a shell variable, with the variables inside it, is read as bash reads it.
    expect(requests.find((r) => r.method === 'POST' && r.path === '/v1/quotes')?.body).toMatchObject({ customerId: 'CUSTOMER', currency: 'CAD', lines: [{ quantity: 2 }] });
    expect(requests.find((r) => r.path === '/api/v1/integrations/syncs' && r.query.provider)?.query).toEqual({ provider: 'accounting', limit: '10' });
    expect(requests.find((r) => r.path === '/api/v1/does-not-exist')?.expected).toBe(401);
  });

  it('compile, every one of them', async () => {
    const checked = await typeCheck(openApiDocument() as unknown as Document);
    expect(checked.calls).toBeGreaterThan(60);
    expect({ status: checked.status, output: checked.output.trim() }).toEqual({ status: 0, output: '' });
  }, 120_000);

  it('do not compile when a request schema with a default is a shared component, as the document had it', async () => {
    // The calculate body as a component: a stock run then makes `persist` (default false) required.
    const document = openApiDocument() as unknown as Document;
    const body = (document.paths['/api/v1/quotes/calculate']!.post as { requestBody: { content: { 'application/json': { schema: unknown } } } }).requestBody.content['application/json'];
    document.components.schemas.CalculateRequest = body.schema;
    body.schema = { $ref: '#/components/schemas/CalculateRequest' };
    const checked = await typeCheck(document);
    expect(checked.status).not.toBe(0);
    expect(checked.output).toMatch(/persist/);
  }, 120_000);
});
