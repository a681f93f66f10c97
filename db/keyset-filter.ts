/**
 * The WHERE clause of a newest-first keyset page optionally narrowed to one provider: rows of
 * `query.provider`, after the (`orderColumn`, id) position of the previous page. Shared by the
 * sync log and the sync runs, whose pages differ only in their table and order column.
 */
export function providerKeysetWhere(orderColumn: string, query: { provider?: string | undefined; after?: readonly [string, string] | undefined }): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (query.provider) {
    conditions.push('provider = ?');
    params.push(query.provider);
  }
  if (query.after) {
    conditions.push(`(${orderColumn}, id) < (?::timestamptz, ?::uuid)`);
    params.push(...query.after);
  }
  return { where: conditions.length ? `where ${conditions.join(' and ')}` : '', params };
}
