import type { z } from 'zod';
import { validationFailed } from '../../domain/errors/errors';
import type { Acceptor } from './compiled-acceptor';
import { unstorableTextComplaint } from '../../domain/text/storable-text';

export { LONE_SURROGATE_COMPLAINT, NUL_COMPLAINT } from '../../domain/text/storable-text';

/** Section 7 reports the first complaint per field; past this many fields the rest are cut. */
export const MAX_REPORTED_FIELDS = 50;

const pathKey = (path: readonly PropertyKey[], location: string) => (path.length ? path.map(String).join('.') : location);

/** A dotted path, and why the text there cannot be stored. */
export type TextComplaint = [path: string, complaint: string];

/**
 * Every string, and every key, that breaks the one string rule (domain/text/storable-text.ts: a
 * NUL, a lone surrogate), with its dotted path and complaint. Refused here, in front of every
 * schema, rather than by the database driver (a 500).
 * Iterative: JSON.parse accepts nesting far deeper than a recursive walk could follow. Each
 * visited value records only its parent and key; a path is spelled out only for a finding, so a
 * clean 200-line body costs no array per field.
 */
export function unstorableText(value: unknown, location: string): TextComplaint[] {
  const found: TextComplaint[] = [];
  const stack: Visit[] = [{ value, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current === 'string') {
      const complaint = unstorableTextComplaint(current);
      if (complaint) found.push([pathKey(pathOf(visit), location), complaint]);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], parent: visit, key: i });
    } else if (current !== null && typeof current === 'object') {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const complaint = unstorableTextComplaint(key);
        if (complaint) found.push([pathKey([...pathOf(visit), key], location), complaint]);
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
export function fieldsOf(error: z.ZodError | undefined, location: string, first: TextComplaint[] = []): FieldComplaints {
  const fields = new Map<string, string>();
  const add = (key: string, message: string) => {
    if (!fields.has(key)) fields.set(key, message);
  };
  for (const [key, complaint] of first) add(key, complaint);
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
  const unstorable = unstorableText(value, location);
  if (accept && unstorable.length === 0 && accept(value)) return value as z.output<S>;
  const result = schema.safeParse(value);
  if (result.success && unstorable.length === 0) return result.data;
  const { fields, total } = fieldsOf(result.success ? undefined : result.error, location, unstorable);
  throw validationFailed(fields, total);
}
