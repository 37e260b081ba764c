// Watched homes over GraphQL (docs/watches-and-webhooks.md): Mutation.watchProperty and unwatchProperty,
// Query.watches and watch(id). The same core as REST's /v1/portal/watches (background.watches) and
// the same body parser (contract/watches.ts parseWatchBody); a Watch's fields are the contract's in camelCase.
import { parseWatchBody, WatchRequestBody, WatchView, type WatchViewShape } from '../../contract/index.js';
import { builder, type GraphqlContext } from '../builder.js';
import { contractArgs, planInputs, restNamed } from '../typebox.js';
import { contractTypes, implementFromContract, requireLookup, rethrowCoded } from './shared.js';

export const WatchType = builder.objectRef<WatchViewShape>('Watch');
implementFromContract(WatchType, WatchView, {
  description: `${WatchView.description} (REST: data of GET /v1/portal/watches/<id>).`,
});

const watchesOf = (ctx: GraphqlContext) => {
  const lookup = requireLookup(ctx);
  return { account: lookup.account, watches: ctx.background.watches };
};

builder.mutationField('watchProperty', (t) =>
  t.field({
    type: WatchType,
    // Nullable: with two in one request, the second one's error must not null the data holding the first's id.
    nullable: true,
    description:
      'Watches a home (REST: POST /v1/portal/watches): read live every intervalHours (each check billed as a lookup), a signed property.changed webhook to webhookUrl when price, status, estimate, rent estimate or HOA changed. The first check runs at once.',
    // Every argument nullable: what is missing or wrong is the core's coded error, as on REST (bad_param, missing_param).
    args: contractArgs(t, planInputs(WatchRequestBody.properties, contractTypes, 'watchProperty', { optional: true })),
    resolve: async (_root, args, ctx) => {
      try {
        const sent = Object.fromEntries(
          Object.entries(restNamed(args as Record<string, unknown>)).filter(([, v]) => v !== null && v !== undefined),
        );
        const { locator, webhookUrl, intervalHours } = parseWatchBody(sent);
        const { account, watches } = watchesOf(ctx);
        return await watches.create(account, { locator, webhookUrl, intervalHours });
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
);

builder.mutationField('unwatchProperty', (t) =>
  t.field({
    type: 'Boolean',
    description:
      "Ends a watch (REST: DELETE /v1/portal/watches/<id>): true once removed; another account's or an unknown id is the error not_found.",
    args: { id: t.arg.id({ required: true, description: 'The watch id (Watch.id)' }) },
    resolve: async (_root, args, ctx) => {
      const { account, watches } = watchesOf(ctx);
      return watches.remove(account, String(args.id)).then(() => true, rethrowCoded);
    },
  }),
);

builder.queryField('watches', (t) =>
  t.field({
    type: [WatchType],
    description: "The caller's watched homes, newest first (REST: GET /v1/portal/watches). Free: no lookup is made.",
    resolve: async (_root, _args, ctx) => {
      const { account, watches } = watchesOf(ctx);
      return watches.list(account).catch(rethrowCoded);
    },
  }),
);

builder.queryField('watch', (t) =>
  t.field({
    type: WatchType,
    description:
      "One of the caller's watches (REST: GET /v1/portal/watches/<id>); another account's or an unknown id is the error not_found.",
    args: { id: t.arg.id({ required: true, description: 'The watch id (Watch.id)' }) },
    resolve: async (_root, args, ctx) => {
      const { account, watches } = watchesOf(ctx);
      return watches.get(account, String(args.id)).catch(rethrowCoded);
    },
  }),
);
