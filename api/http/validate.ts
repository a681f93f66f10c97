import type { z } from 'zod';
import { validationFailed } from './errors';

/**
 * Section 7: 422 with `details.fields`, keyed by dotted path (`lineItems.1.dropInches`), the
 * first complaint per field only. An unknown key of a strict object is reported at its own path.
 */
export function fieldsOf(error: z.ZodError, location: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const add = (path: PropertyKey[], message: string) => {
    const key = path.length ? path.map(String).join('.') : location;
    if (!(key in fields)) fields[key] = message;
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key], 'Unrecognized key');
    } else {
      add(issue.path, issue.message);
    }
  }
  return fields;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, location: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationFailed(fieldsOf(result.error, location));
  return result.data;
}
