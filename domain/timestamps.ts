/**
 * A stored timestamp as the interfaces write it: ISO-8601 in UTC, `null` kept as `null`. The
 * database driver hands back a `Date`, a raw query sometimes its text; both read the same here.
 */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
