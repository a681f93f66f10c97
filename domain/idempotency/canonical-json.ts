/**
 * RFC 8785 (JSON Canonicalization Scheme) for JSON values: object keys sorted by UTF-16 code units,
 * no whitespace, numbers and strings as ECMAScript serialises them. Two bodies that differ only in
 * key order, whitespace or number spelling (1.0, 1e0) have one canonical text. The same output as
 * the `canonicalize` package (test/unit/idempotency-rule.test.ts compares them), written here so
 * that domain/ stays free of dependencies.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`${value} is not a JSON number`);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') return canonicalJson((withToJson.toJSON as () => unknown).call(value));
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined || typeof item === 'symbol' ? null : item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined && typeof record[key] !== 'symbol')
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}
