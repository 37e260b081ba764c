// Shape limits on every document, checked before execution (graphql-armor): depth, aliases, tokens,
// directives. A refusal is a GraphQL error with extensions.code `query_too_complex` (armor's own
// errors carry no code) and `details.limit` naming the limit.
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestError } from '../errors.js';
import { SHAPE_LIMITS } from '../limits.js';

type Limit = keyof typeof SHAPE_LIMITS;

function reject(limit: Limit) {
  return (ctx: ValidationContext | null, error: GraphQLError) => {
    const coded = requestError('query_too_complex', error.message.replace(/^Syntax Error: /, ''), {
      limit,
      max: SHAPE_LIMITS[limit],
    });
    if (ctx) ctx.reportError(coded);
    else throw coded; // the token limit runs in the parser, which has no validation context
  };
}

const rule = (limit: Limit) => ({ n: SHAPE_LIMITS[limit], onReject: [reject(limit)], propagateOnRejection: false });

export function useArmor(): Plugin {
  const armor = new EnvelopArmor({
    maxDepth: { ...rule('maxDepth'), ignoreIntrospection: true },
    maxAliases: rule('maxAliases'),
    maxTokens: rule('maxTokens'),
    maxDirectives: rule('maxDirectives'),
    // The cost of an operation is its number of lookups (use-lookup-limit.ts), not a field-cost model.
    costLimit: { enabled: false },
    // The schema is public (schema.graphql, introspection): suggestions only help.
    blockFieldSuggestion: { enabled: false },
  });
  const { plugins } = armor.protect();
  return {
    onPluginInit({ addPlugin }) {
      for (const p of plugins) addPlugin(p as Plugin);
    },
  };
}
