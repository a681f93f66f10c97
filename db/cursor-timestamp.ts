/**
 * A timestamp column as keyset cursors keep it: UTC, to the microsecond (a JS Date would drop
 * them, and the next page would then repeat or skip rows that share a millisecond).
 */
export const cursorTimestamp = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
