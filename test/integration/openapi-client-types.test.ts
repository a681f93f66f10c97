import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { openApiDocument } from '../../scripts/openapi-document';
import { generateClientTypes, TYPES_FILE } from '../../scripts/openapi-typegen';

/**
 * test/client/api-types.ts is generated from /openapi.json by openapi-typescript and committed,
 * so that `tsc` (the first step of `npm test`) type-checks the typed-client test against it.
 * This test regenerates it from the document the API serves and fails when they differ.
 */
let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

describe('the generated client types (test/client/api-types.ts)', () => {
  it('are what openapi-typescript makes of the served /openapi.json today (run `npm run openapi:types` after changing a route)', async () => {
    const served = (await (await api.request('/openapi.json')).json()) as unknown;
    const committed = await readFile(TYPES_FILE, 'utf8');
    const fresh = await generateClientTypes(served);
    expect(fresh.length).toBeGreaterThan(10_000);
    // Not toEqual on 7,000 lines: name the first line that differs.
    const [a, b] = [fresh.split('\n'), committed.split('\n')];
    const first = a.findIndex((line, i) => line !== b[i]);
    expect({ firstDifferentLine: first === -1 && a.length === b.length ? null : first + 1, fresh: a[first], committed: b[first] }).toEqual({
      firstDifferentLine: null,
      fresh: undefined,
      committed: undefined,
    });
  }, 120_000);

  it('are generated from the same document the script builds without a server', async () => {
    const served = (await (await api.request('/openapi.json')).json()) as unknown;
    expect(JSON.parse(JSON.stringify(openApiDocument()))).toEqual(served);
  });
});
