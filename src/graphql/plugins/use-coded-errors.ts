// Every GraphQL error a client gets carries a code from the one table (src/contract/errors.ts); this is
// where the codes of Yoga, envelop and graphql-js become the table's:
// - the request's parameters are checked here first (onParams, before Yoga's own check), so a
//   parameter of the wrong type is bad_param naming it, with REST's 400;
// - a framework code that still reaches an answer (a parse or validation failure, an operationName
//   naming no operation, a body Yoga cannot read) is swapped for the table's in place (codeOf in
//   errors.ts), keeping its HTTP status and accept rule: yoga.ts's maskError calls it for every
//   request error, and onValidate here for validation errors, which Yoga answers without masking;
// - graphql-js reports some request errors during execution without a code (a directive argument that
//   is null, an argument it cannot coerce): those have no path and become bad_param. An error on a
//   field path without a code is the service's own failure: internal (unexpected errors are already
//   masked with that code by yoga.ts).
import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { LookupError } from '../../contract/index.js';
import { codeOf, INVALID_DOCUMENT, inTable, toGraphQLError } from '../errors.js';

/** Execution results carry new errors each time: coded in a copy. */
function coded(error: GraphQLError): GraphQLError {
  if (inTable(error.extensions?.code)) return error;
  const copy = new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    extensions: { ...error.extensions },
  });
  return codeOf(copy);
}

function withCodes<
  T extends ExecutionResult & { incremental?: ReadonlyArray<{ errors?: ReadonlyArray<GraphQLError> }> },
>(result: T): T | null {
  const uncoded = (errors?: ReadonlyArray<GraphQLError>) => errors?.some((e) => !inTable(e.extensions?.code)) ?? false;
  if (!uncoded(result.errors) && !(result.incremental ?? []).some((i) => uncoded(i.errors))) return null;
  return {
    ...result,
    ...(result.errors ? { errors: result.errors.map(coded) } : {}),
    ...(result.incremental
      ? { incremental: result.incremental.map((i) => (i.errors ? { ...i, errors: i.errors.map(coded) } : i)) }
      : {}),
  };
}

const PARAMS = { query: 'string', operationName: 'string', variables: 'object', extensions: 'object' } as const;
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A parameter of the request that is not what GraphQL over HTTP says (null counts as absent). */
function badParam(params: unknown): LookupError | null {
  if (kindOf(params) !== 'object')
    return new LookupError('bad_body', {
      message: 'The body must be a JSON object with a query.',
      details: { reason: `body is ${kindOf(params)}` },
    });
  for (const [param, value] of Object.entries(params as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    const expected = PARAMS[param as keyof typeof PARAMS];
    if (!expected)
      return new LookupError('bad_param', {
        message: `Unknown parameter ${param}.`,
        details: { param, reason: 'unknown parameter', allowed: Object.keys(PARAMS) },
      });
    if (kindOf(value) !== expected) {
      return new LookupError('bad_param', {
        message: `${param} must be ${expected === 'object' ? 'an object' : 'a string'}.`,
        details: { param, reason: `${kindOf(value)}, not ${expected}` },
      });
    }
  }
  return null;
}

export function useCodedErrors(): Plugin {
  return {
    onParams({ params }) {
      const refusal = badParam(params);
      if (refusal) throw toGraphQLError(refusal, { http: 'response' });
    },
    onValidate() {
      return ({ valid, result }) => {
        // graphql-js's validation errors have no code yet (Yoga adds its own after this hook).
        if (!valid) for (const error of result) codeOf(error, INVALID_DOCUMENT);
      };
    },
    onExecute() {
      return {
        onExecuteDone(payload) {
          return handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            const fixed = withCodes(result as ExecutionResult);
            if (fixed) setResult(fixed);
          });
        },
      };
    },
  };
}
