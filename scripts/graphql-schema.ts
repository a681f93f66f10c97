import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { schema } from '../api/graphql/schema';

/**
 * `npm run graphql:schema`: writes the schema's SDL to api/graphql/schema.graphql, the copy that
 * test/unit/graphql-schema.test.ts compares with the schema (a change to the SDL shows in review).
 */
const file = new URL('../api/graphql/schema.graphql', import.meta.url);
writeFileSync(file, `${printSchema(schema)}\n`);
process.stdout.write(`wrote ${file.pathname}\n`);
