/**
 * The one string rule: text PostgreSQL can store. A NUL character cannot be stored in `text` at
 * all; a lone UTF-16 surrogate (`"\ud800"`, which JSON allows as an escape) is not Unicode text:
 * a `jsonb` column refuses it and a `text` column would keep U+FFFD instead of what was sent.
 * Both are refused where input enters (api/http/validate.ts) rather than by the driver (a 500).
 */
export const NUL_COMPLAINT = 'Must not contain the NUL character (\\u0000)';
export const LONE_SURROGATE_COMPLAINT = 'Must be well-formed Unicode text: no lone UTF-16 surrogate (\\ud800 to \\udfff)';

/** Why `text` cannot be stored, or undefined when it can. */
export function unstorableTextComplaint(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_COMPLAINT;
  if (!text.isWellFormed()) return LONE_SURROGATE_COMPLAINT;
  return undefined;
}
