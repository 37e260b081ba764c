// @defer and @stream, declared in the schema itself so that schema.graphql tells clients (and codegen)
// that they are available. useDeferStream() finds them and does not add them again; the executor
// reads them by name. Same locations and arguments as @graphql-tools/utils' GraphQLDeferDirective and
// GraphQLStreamDirective (the incremental-delivery RFC), written here because that package is only a
// transitive dependency (not in package.json), and with our descriptions (the streaming order of
// BatchLookup.results).
import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
} from 'graphql';

export const DeferDirective = new GraphQLDirective({
  name: 'defer',
  description: 'Delivers the fragment later, in an incremental payload (multipart/mixed or text/event-stream).',
  locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
  args: {
    if: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: true, description: 'Deferred when true.' },
    label: { type: GraphQLString, description: 'Names the incremental payload.' },
  },
});

export const StreamDirective = new GraphQLDirective({
  name: 'stream',
  description:
    'Delivers list items as they are ready, after the first `initialCount`. On `BatchLookup.results` items then come in the order the homes finish (each carries its `index`).',
  locations: [DirectiveLocation.FIELD],
  args: {
    if: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: true, description: 'Streamed when true.' },
    label: { type: GraphQLString, description: 'Names the incremental payloads.' },
    initialCount: { type: GraphQLInt, defaultValue: 0, description: 'Items sent in the initial payload.' },
  },
});
