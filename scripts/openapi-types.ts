import { writeFile } from 'node:fs/promises';
import { openApiDocument } from './openapi-document';
import { generateClientTypes, TYPES_FILE } from './openapi-typegen';

/**
 * `npm run openapi:types`: regenerates test/client/api-types.ts, the TypeScript types of the
 * API that typed clients (openapi-fetch) are built on. Run it after changing a route or a
 * schema; test/integration/openapi-client-types.test.ts fails until then.
 */
await writeFile(TYPES_FILE, await generateClientTypes(openApiDocument()));
console.log(`wrote ${TYPES_FILE}`);
