import { z } from 'zod';
import { instant } from './date-schemas';
import { ERROR_CODES } from '../../domain/errors/error-kinds';

export const Uuid = z.uuid();
export const Timestamp = instant('ISO-8601, UTC');
export const IdParams = z.strictObject({ id: Uuid });

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z
        .object({ fields: z.record(z.string(), z.string()) })
        .nullable()
        .optional()
        .meta({ description: 'On 422 only: first complaint per dotted field path. null on most other errors; absent on a router 404.' }),
      request_id: z.string().nullable(),
    }),
  })
  .meta({ id: 'Error' });

/** `q` of the lists that search by text: a case-insensitive substring, matched literally (db/text-search.ts). */
export const SearchParam = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .optional()
  .meta({ description: 'Text to find, case-insensitive, anywhere in the fields this list searches (its description names them); `%` and `_` are matched literally.' });
