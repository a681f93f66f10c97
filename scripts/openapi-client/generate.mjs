// The API's TypeScript types from its OpenAPI document, by openapi-typescript (paths,
// components, webhooks), for openapi-fetch clients. As a command: the document on standard
// input, the types on standard output.
import openapiTS, { astToString } from 'openapi-typescript';
import { text } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';

const HEADER = `// Generated from /openapi.json by openapi-typescript (npm run openapi:types); do not edit.
// test/integration/openapi-client-types.test.ts fails when it no longer matches the document.
`;

/** @param {object} document an OpenAPI 3.1 document @returns {Promise<string>} */
export async function generateTypes(document) {
  // No options: what any integrator's stock run makes of the document. A field with a default is
  // optional to send because request schemas are written inline under requestBody (api/meta/openapi.ts).
  const ast = await openapiTS(document);
  return HEADER + astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(await generateTypes(JSON.parse(await text(process.stdin))));
}
