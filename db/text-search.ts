import { sql, type Expression, type RawBuilder } from 'kysely';

/**
 * The one text search of the lists (`q`): a case-insensitive substring, `ilike '%text%'`, which
 * the trigram GIN indexes of Migration20261127070000TextSearch answer. The caller's text is
 * matched literally: LIKE's wildcards and its escape character are escaped.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A customer's searchable text, the name then the email: exactly the expression the index
 * `customers_text_trgm` is built on, so one index answers "in the name or the email".
 */
export const customerText = (name: Expression<string>, email: Expression<string | null>): RawBuilder<string> => sql<string>`(${name} || ' ' || coalesce(${email}, ''))`;

/** A quote's reference as `/v1/` shows it (Q-<number>), the expression of `quotes_reference_trgm`. */
export const quoteReference = (quoteNumber: Expression<number>): RawBuilder<string> => sql<string>`('Q-' || ${quoteNumber}::text)`;
