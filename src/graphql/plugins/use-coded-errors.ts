// Every error of an execution result carries extensions.code. graphql-js reports some request errors
// during execution without one (a directive argument that is null, an argument it cannot coerce):
// those have no path and become bad_param. An error on a field path without a code is the service's
// own failure: internal (unexpected errors are already masked with that code by yoga.ts).
import { GraphQLError, type ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';

function coded(error: GraphQLError): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    path: error.path ?? null,
    extensions: { ...error.extensions, code: error.path ? 'internal' : 'bad_param' },
  });
}

function withCodes<T extends ExecutionResult & { incremental?: ReadonlyArray<{ errors?: ReadonlyArray<GraphQLError> }> }>(result: T): T | null {
  const uncoded = (errors?: ReadonlyArray<GraphQLError>) => errors?.some((e) => typeof e.extensions?.code !== 'string') ?? false;
  if (!uncoded(result.errors) && !(result.incremental ?? []).some((i) => uncoded(i.errors))) return null;
  return {
    ...result,
    ...(result.errors ? { errors: result.errors.map(coded) } : {}),
    ...(result.incremental ? { incremental: result.incremental.map((i) => (i.errors ? { ...i, errors: i.errors.map(coded) } : i)) } : {}),
  };
}

export function useCodedErrors(): Plugin {
  return {
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
