// The Pothos builder: its options and the Context type only. No GraphQL type is defined here
// (types live in schema/*.ts, which import this file; this file imports none of them).
import SchemaBuilder from '@pothos/core';
import type { Background } from '../background.js';
import type { Admission, CoreDeps, RequestContext } from '../lookup/index.js';

/** What every resolver receives. */
export interface GraphqlContext {
  core: CoreDeps;
  /** Jobs and watches, beside the core (made on first use). */
  background: Background;
  /**
   * The one per-request lookup context (account, DataLoader, deadline, client-gone signal), shared by
   * every field of the operation and by every operation of a batched HTTP request.
   * Null only for introspection-only operations, which need no API key.
   */
  lookup: RequestContext | null;
  /** The operation's lookups, admitted as a whole before it runs (use-lookup-limit.ts); absent without lookups. */
  admission?: Admission;
}

export interface BuilderTypes {
  Context: GraphqlContext;
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
  };
}

/** The builder's full type set (what Pothos helper types take). */
export type Types = PothosSchemaTypes.ExtendDefaultTypes<BuilderTypes>;

export const builder = new SchemaBuilder<BuilderTypes>({ defaultFieldNullability: false });

builder.queryType({ description: "Property lookups (the same core as REST /v1), and the caller's account." });
// Each schema file adds its own mutations (builder.mutationField): jobs, watches.
builder.mutationType({
  description:
    'Work that outlives the request (lookup jobs, watched homes). A mutation is sent by POST; an Idempotency-Key header makes its retry safe.',
});
