/**
 * A stored timestamp as the interfaces write it: ISO-8601 in UTC, an absent one (`null`, or a
 * column a query left out) as `null`. The database driver hands back a `Date`, a raw query
 * sometimes its text; both read the same here.
 */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null | undefined): string | null;
export function iso(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : new Date(value).toISOString();
}
