import { GraphQLError } from 'graphql';
import { DomainError, type ErrorKind } from '../../domain/errors/errors';

/**
 * D17: every GraphQL error carries `extensions.code`. Domain errors thrown by the services a
 * resolver calls keep their meaning under these codes (the same kinds D10's problems name);
 * anything else is INTERNAL_SERVER_ERROR with nothing of its message (logged under the request id).
 * test/unit/graphql-errors.test.ts walks every row.
 */
export const CODE_OF_KIND: Readonly<Record<ErrorKind, string>> = {
  bad_request: 'BAD_USER_INPUT',
  payload_too_large: 'REQUEST_TOO_LARGE',
  unsupported_encoding: 'BAD_REQUEST',
  validation_failed: 'BAD_USER_INPUT',
  unauthenticated: 'UNAUTHENTICATED',
  invalid_credentials: 'UNAUTHENTICATED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  job_not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  invalid_transition: 'INVALID_TRANSITION',
  idempotency_key_reused: 'IDEMPOTENCY_KEY_REUSED',
  idempotency_key_in_use: 'IDEMPOTENCY_KEY_IN_USE',
  rate_limited: 'THROTTLED',
  provider_failed: 'PROVIDER_ERROR',
  provider_unavailable: 'PROVIDER_ERROR',
  internal: 'INTERNAL_SERVER_ERROR',
};

/** Codes of the documents refused before execution (api/graphql/limits.ts, cost.ts). */
export const REFUSAL_CODES = {
  syntax: 'GRAPHQL_PARSE_FAILED',
  validation: 'GRAPHQL_VALIDATION_FAILED',
  depth: 'MAX_DEPTH_EXCEEDED',
  aliases: 'MAX_ALIASES_EXCEEDED',
  rootFields: 'MAX_ROOT_FIELDS_EXCEEDED',
  batch: 'BATCHING_NOT_SUPPORTED',
  cost: 'MAX_COST_EXCEEDED',
  variables: 'VARIABLES_TOO_LARGE',
  tooLarge: 'REQUEST_TOO_LARGE',
  badRequest: 'BAD_REQUEST',
  throttled: 'THROTTLED',
  badInput: 'BAD_USER_INPUT',
} as const;

export const codedError = (message: string, code: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { ...extensions, code } });

/**
 * An execution error as the client sees it: a domain error under its code (with the fields of a
 * validation failure), a GraphQLError that already has a code as it is, and anything else masked.
 */
export function clientError(error: GraphQLError, log?: { error(obj: object, msg: string): void }): GraphQLError {
  const original = error.originalError;
  if (original instanceof DomainError) {
    const fields = (original.details as { fields?: Record<string, string> } | null)?.fields;
    return new GraphQLError(original.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: CODE_OF_KIND[original.kind], ...(fields ? { fields } : {}) },
    });
  }
  if (original instanceof GraphQLError && original.extensions.code) {
    return new GraphQLError(original.message, { nodes: error.nodes, path: error.path, extensions: original.extensions });
  }
  if (error.extensions.code) return error;
  // Without a path it is an error of the request itself (a variable that does not coerce), not of a resolver.
  if (!error.path) return new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: REFUSAL_CODES.badInput } });
  log?.error({ err: original, path: error.path }, 'graphql resolver failed');
  return new GraphQLError('Internal server error.', { nodes: error.nodes, path: error.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}
