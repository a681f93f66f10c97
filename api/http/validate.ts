import type { z } from 'zod';
import { validationFailed } from '../../domain/errors/errors';
import type { Acceptor } from './compiled-acceptor';

/** Section 7 reports the first complaint per field; past this many fields the rest are cut. */
export const MAX_REPORTED_FIELDS = 50;
export const NUL_COMPLAINT = 'Must not contain the NUL character (\\u0000)';

const pathKey = (path: readonly PropertyKey[], location: string) => (path.length ? path.map(String).join('.') : location);

/**
 * Dotted paths of every string, and every key, holding a NUL character. PostgreSQL text cannot
 * store one, so it is refused here, in front of every schema, rather than by the driver (a 500).
 * Iterative: JSON.parse accepts nesting far deeper than a recursive walk could follow. Each
 * visited value records only its parent and key; a path is spelled out only for a finding, so a
 * clean 200-line body costs no array per field.
 */
export function nulPaths(value: unknown, location: string): string[] {
  const found: string[] = [];
  const stack: Visit[] = [{ value, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) found.push(pathKey(pathOf(visit), location));
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: visit, key: i });
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        if (key.includes('\u0000')) found.push(pathKey([...pathOf(visit), key], location));
        else stack.push({ value: (current as Record<string, unknown>)[key], parent: visit, key });
      }
    }
  }
  return found;
}

interface Visit {
  value: unknown;
  /** Undefined for the root, whose path is empty. */
  parent: Visit | undefined;
  key: PropertyKey;
}

function pathOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Visit = visit; at.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

export interface FieldComplaints {
  /** At most MAX_REPORTED_FIELDS entries, in the order found. */
  fields: Record<string, string>;
  /** How many distinct fields had a complaint in all. */
  total: number;
}

/**
 * Section 7: 422 with `details.fields`, keyed by dotted path (`lineItems.1.dropInches`), the
 * first complaint per field only. An unknown key of a strict object is reported at its own path,
 * `__proto__` like any other (a Map, then own properties: never the prototype setter).
 */
export function fieldsOf(error: z.ZodError | undefined, location: string, first: string[] = []): FieldComplaints {
  const fields = new Map<string, string>();
  const add = (key: string, message: string) => {
    if (!fields.has(key)) fields.set(key, message);
  };
  for (const key of first) add(key, NUL_COMPLAINT);
  for (const issue of error?.issues ?? []) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(pathKey([...issue.path, key], location), 'Unrecognized key');
    } else {
      add(pathKey(issue.path, location), issue.message);
    }
  }
  return { fields: Object.fromEntries([...fields].slice(0, MAX_REPORTED_FIELDS)), total: fields.size };
}

/** `accept`: a compiled check that takes exactly what `schema` takes (api/http/compiled-acceptor.ts). */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, location: string, accept?: Acceptor): z.output<S> {
  const withNul = nulPaths(value, location);
  if (accept && withNul.length === 0 && accept(value)) return value as z.output<S>;
  const result = schema.safeParse(value);
  if (result.success && withNul.length === 0) return result.data;
  const { fields, total } = fieldsOf(result.success ? undefined : result.error, location, withNul);
  throw validationFailed(fields, total);
}
