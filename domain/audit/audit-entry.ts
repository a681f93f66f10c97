import { isDeepStrictEqualJson } from './json-equal';
import type { AuditAction, AuditEntityType } from './actions';

/** Who made a change (D22): a user of the tenant, an operator at the command line, or the system itself (a timer, a workflow). */
export interface AuditActor {
  type: 'user' | 'operator' | 'system';
  id: string | null;
  email: string | null;
}

/** One field's change; values are JSON (a decimal as its string, a time as ISO-8601). */
export interface AuditChange {
  field: string;
  before: unknown;
  after: unknown;
}

export interface AuditEntry {
  actor: AuditActor;
  action: AuditAction;
  entityType: AuditEntityType;
  entityId: string;
  changes: AuditChange[];
  requestId: string | null;
}

/**
 * The fields whose values differ between two views of one record, in the order of `after`'s
 * keys (then fields only `before` had). Values compare as JSON, so `{lat: 1}` and a fresh
 * `{lat: 1}` are the same.
 */
export function fieldChanges(before: Record<string, unknown>, after: Record<string, unknown>): AuditChange[] {
  const fields = [...Object.keys(after), ...Object.keys(before).filter((field) => !(field in after))];
  return fields
    .filter((field) => !isDeepStrictEqualJson(before[field] ?? null, after[field] ?? null))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

/**
 * A field name that holds a secret (D22: "no secret, token, password or ciphertext appears"):
 * the log says *that* a secret rotated or a password was reset, by its action, never carries
 * the value, so a change naming such a field is a programming error, refused before it is
 * written. Matched on the name's words, so `token_version` or `secret_preview` are refused too.
 */
const SECRET_WORDS = /(^|[_.\-\s])(secret|secrets|token|tokens|password|passwords|hash|hashes|cipher|ciphertext|key|keys|credential|credentials|signing)([_.\-\s]|$)/i;

export function secretFieldsOf(entry: Pick<AuditEntry, 'changes'>): string[] {
  return entry.changes.map((change) => change.field).filter((field) => SECRET_WORDS.test(field.replace(/([a-z])([A-Z])/g, '$1_$2')));
}
