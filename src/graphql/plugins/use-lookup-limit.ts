// Before an operation executes: its variables are coerced as the executor will coerce them (invalid
// ones are refused with the spec's bad_param), then its lookups are counted with those values
// (`property` fields plus `properties` items) against the batch limit (50, the contract's
// MAX_BATCH_ITEMS). Over the limit, the operation is refused before it executes, so before any
// upstream call or charge. Batched requests are also counted as a whole: use-batched-requests.ts.
// Within it, the operation's lookups take their units of the key's rate window at once, through the
// core (admitOperation): all or none, as a REST batch.
// Mutations (lookup jobs, watches) count no lookups here: their work runs in the background, billed as it
// runs. Subscriptions (the schema has none; a job's progress is REST's event stream) are refused with a code.
import { getOperationAST, Kind, type GraphQLError, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LookupError, MAX_BATCH_ITEMS } from '../../contract/index.js';
import { admitOperation } from '../../lookup/index.js';
import type { GraphqlContext } from '../builder.js';
import { requestError, toGraphQLError } from '../errors.js';
import { tooManyLookups } from '../limits.js';
import { coerceVariables, countLookups } from '../lookup-count.js';

/** A variable the executor cannot coerce: the spec's bad_param, with GraphQL's message and location. */
function badVariable(error: GraphQLError): GraphQLError {
  const node = error.nodes?.[0];
  const name = node?.kind === 'VariableDefinition' ? node.variable.name.value : undefined;
  return toGraphQLError(
    new LookupError('bad_param', { message: error.message, ...(name ? { details: { param: `$${name}` } } : {}) }),
    { http: 'request', nodes: error.nodes },
  );
}

/** The executor's own refusal of a subscription carries no code. */
const notSupported = (operation: string): GraphQLError =>
  requestError(
    'operation_not_supported',
    `Subscriptions are not served (the schema has no ${operation} type); follow a job with GET /v1/portal/jobs/<id>/events or its webhook.`,
    { operation },
  );

export function useLookupLimit(max = MAX_BATCH_ITEMS): Plugin<GraphqlContext> {
  return {
    // graphql 17 refuses an operation whose root type the schema lacks (a subscription) already in
    // validation (KnownOperationTypesRule), with no code: the same refusal as the executor's below.
    onValidate({ params }) {
      return ({ valid, result, setResult }) => {
        if (valid) return;
        const unsupported = new Set<OperationDefinitionNode>();
        for (const error of result) {
          const node = error.nodes?.[0];
          if (node?.kind === Kind.OPERATION_DEFINITION && !params.schema.getRootType(node.operation))
            unsupported.add(node);
        }
        if (unsupported.size === 0) return;
        setResult([
          ...[...unsupported].map((op) => notSupported(op.operation)),
          ...result.filter((e) => !unsupported.has(e.nodes?.[0] as OperationDefinitionNode)),
        ]);
      };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (op) setResultAndStopExecution({ errors: [notSupported(op.operation)] });
    },
    onExecute({ args, setResultAndStopExecution }) {
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (!op) return; // the executor reports it
      if (op.operation === 'subscription') {
        setResultAndStopExecution({ errors: [notSupported(op.operation)] });
        return;
      }
      const vars = coerceVariables(args.schema, op, args.variableValues);
      if ('errors' in vars) {
        setResultAndStopExecution({ errors: vars.errors.map(badVariable) });
        return;
      }
      const n = countLookups(args.document, op, vars.variables);
      if (n > max) {
        setResultAndStopExecution({ errors: [tooManyLookups(max, n)] });
        return;
      }
      const ctx = args.contextValue;
      if (ctx.lookup && n > 0) ctx.admission = admitOperation(ctx.lookup, n);
    },
  };
}
