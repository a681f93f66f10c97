import { isDatabaseUnreachable } from '../../db/connectivity';
import { asDomainError } from '../http/error-handler';
import { GraphQLError } from 'graphql';
import { DomainError } from '../../domain/errors/errors';
import { ERROR_RENDERINGS } from '../../domain/errors/error-kinds';

/**
 * D17: every GraphQL error carries `extensions.code`. Domain errors thrown by the services a
 * resolver calls answer the code of their kind (domain/errors/error-kinds.ts); anything else is
 * masked. These are the codes of the documents refused before execution (api/graphql/limits.ts,
 * cost.ts); a refusal that is a kind of domain error (too large, throttled, bad input) has that kind's code.
 */
export const REFUSAL_CODES = {
  syntax: 'GRAPHQL_PARSE_FAILED',
  validation: 'GRAPHQL_VALIDATION_FAILED',
  depth: 'MAX_DEPTH_EXCEEDED',
  aliases: 'MAX_ALIASES_EXCEEDED',
  rootFields: 'MAX_ROOT_FIELDS_EXCEEDED',
  batch: 'BATCHING_NOT_SUPPORTED',
  cost: 'MAX_COST_EXCEEDED',
  variables: 'VARIABLES_TOO_LARGE',
  variablesDepth: 'VARIABLES_TOO_DEEP',
  tooLarge: ERROR_RENDERINGS.payload_too_large.graphql,
  badRequest: 'BAD_REQUEST',
  throttled: ERROR_RENDERINGS.rate_limited.graphql,
  badInput: ERROR_RENDERINGS.validation_failed.graphql,
} as const;

export const codedError = (message: string, code: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { ...extensions, code } });

/**
 * An execution error as the client sees it: a domain error under its code (with the fields of a
 * validation failure), a GraphQLError that already has a code as it is, and anything else masked.
 */
export function clientError(error: GraphQLError, log?: { error(obj: object, msg: string): void }): GraphQLError {
  // A resolver that could not reach the database answers SERVICE_UNAVAILABLE, as REST answers 503.
  const original = isDatabaseUnreachable(error.originalError) ? asDomainError(error.originalError, log) : error.originalError;
  if (original instanceof DomainError) {
    const fields = (original.details as { fields?: Record<string, string> } | null)?.fields;
    return new GraphQLError(original.message, {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: ERROR_RENDERINGS[original.kind].graphql, ...(fields ? { fields } : {}) },
    });
  }
  if (original instanceof GraphQLError && original.extensions.code) {
    return new GraphQLError(original.message, { nodes: error.nodes, path: error.path, extensions: original.extensions });
  }
  if (error.extensions.code) return error;
  // Without a path it is an error of the request itself (a variable that does not coerce), not of a resolver.
  if (!error.path) return new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: REFUSAL_CODES.badInput } });
  log?.error({ err: original, path: error.path }, 'graphql resolver failed');
  return new GraphQLError('Internal server error.', { nodes: error.nodes, path: error.path, extensions: { code: ERROR_RENDERINGS.internal.graphql } });
}
