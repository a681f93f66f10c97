import { GraphQLError, Kind, parse as parseDocument, type DocumentNode, type OperationDefinitionNode, type Source, type ValidationContext, type ValidationRule } from 'graphql';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { codedError, REFUSAL_CODES } from './errors';

/**
 * D17: abusive documents are refused before anything runs, each with its own code. The numbers
 * are documented in docs/graphql.md. Introspection's own nesting (`fields { type { fields ... } }`)
 * is bounded by graphql-js's MaxIntrospectionDepthRule, one of its specified rules.
 */
export const LIMITS = {
  /** Field nesting, fragments counted where they are spread (graphql-armor's count). */
  maxDepth: 10,
  /** Aliases in one operation. */
  maxAliases: 15,
  /** Root fields of one operation: each is a query of its own, so this bounds the batch. */
  maxRootFields: 10,
  /** Lexical tokens of a document (graphql-js stops parsing beyond it). */
  maxTokens: 5_000,
  /** The variables object, as JSON. */
  maxVariablesBytes: 32 * 1024,
  /**
   * Objects and arrays nested in the variables, the variables object itself the first: the
   * deepest input of the schema (createQuote's lines and their configuration) needs 5. Checked
   * before anything walks the variables recursively (JSON.stringify, graphql-js's coercion), which
   * a body of a few kilobytes nested thousands deep would take past the call stack (a 500).
   */
  maxVariablesDepth: 32,
} as const;

/** graphql-armor's rules answer through our codes (never by throwing out of validation). */
const reporting = (code: string) => ({
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(codedError(error.message.replace(/^Syntax Error: /, ''), code))],
});

/** At most maxRootFields root fields in an operation, fragments and inline fragments included. */
const rootFieldLimit: ValidationRule = (context) => ({
  OperationDefinition(operation: OperationDefinitionNode) {
    let count = 0;
    const seen = new Set<string>();
    const walk = (selections: OperationDefinitionNode['selectionSet']['selections']) => {
      for (const selection of selections) {
        if (selection.kind === Kind.FIELD) count++;
        else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet.selections);
        else if (!seen.has(selection.name.value)) {
          seen.add(selection.name.value);
          const fragment = context.getFragment(selection.name.value);
          if (fragment) walk(fragment.selectionSet.selections);
        }
      }
    };
    walk(operation.selectionSet.selections);
    if (count > LIMITS.maxRootFields) {
      context.reportError(codedError(`An operation may select at most ${LIMITS.maxRootFields} root fields; this one selects ${count}.`, REFUSAL_CODES.rootFields));
    }
  },
});

export function validationRules(specified: readonly ValidationRule[]): ValidationRule[] {
  return [
    ...specified,
    maxDepthRule({ n: LIMITS.maxDepth, ...reporting(REFUSAL_CODES.depth) }),
    maxAliasesRule({ n: LIMITS.maxAliases, ...reporting(REFUSAL_CODES.aliases) }),
    rootFieldLimit,
  ];
}

/** graphql-js's parser with the token limit; a syntax error keeps its code either way. */
export function parse(source: string | Source): DocumentNode {
  try {
    return parseDocument(source, { maxTokens: LIMITS.maxTokens, noLocation: false });
  } catch (error) {
    if (error instanceof GraphQLError) throw new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code: REFUSAL_CODES.syntax } });
    throw error;
  }
}

/**
 * How deep objects and arrays nest in the variables as sent, counted only as far as `limit + 1`
 * (so a body nested a million deep costs no more than one just over the limit), or undefined when
 * they nest no deeper than `limit`. Iterative, as api/http/validate.ts walks REST bodies: the body
 * parser accepts nesting far deeper than any recursive walk could follow.
 */
export function overDeepVariables(variables: unknown, limit: number = LIMITS.maxVariablesDepth): number | undefined {
  const stack: [value: unknown, depth: number][] = [[variables, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > limit) return depth;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** The size of the variables as sent, or undefined when they are within the limit (their depth checked first: overDeepVariables). */
export function oversizedVariables(variables: unknown): number | undefined {
  if (variables === undefined || variables === null) return undefined;
  const size = Buffer.byteLength(JSON.stringify(variables), 'utf8');
  return size > LIMITS.maxVariablesBytes ? size : undefined;
}
