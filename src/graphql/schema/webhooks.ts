// Webhook deliveries over GraphQL (docs/watches-and-webhooks.md): Query.webhookDeliveries (the account's
// delivery attempts, newest first, paged) and Mutation.redeliverWebhook(id). The same core as REST's
// /v1/webhooks/deliveries (background.webhooks) and the same page checks (contract/webhook-deliveries.ts);
// a WebhookDelivery's fields are the contract's in camelCase. Free: no lookup is made.
import {
  DEFAULT_DELIVERIES_PAGE,
  deliveryCursor,
  deliveryPageSize,
  MAX_DELIVERIES_PAGE,
  WebhookDeliveryView,
  type WebhookDeliveryShape,
} from '../../contract/webhook-deliveries.js';
import { builder, type GraphqlContext } from '../builder.js';
import { implementFromContract, requireLookup, rethrowCoded } from './shared.js';

export const WebhookDeliveryType = builder.objectRef<WebhookDeliveryShape>('WebhookDelivery');
implementFromContract(WebhookDeliveryType, WebhookDeliveryView, {
  description: `${WebhookDeliveryView.description} (REST: an item of GET /v1/webhooks/deliveries.)`,
});

interface DeliveryPage {
  deliveries: WebhookDeliveryShape[];
  endCursor: string | null;
  hasNextPage: boolean;
}
const DeliveryPageType = builder.objectRef<DeliveryPage>('WebhookDeliveryPage');

DeliveryPageType.implement({
  description: "A page of the account's webhook delivery attempts, newest first (REST: GET /v1/webhooks/deliveries).",
  fields: (t) => ({
    deliveries: t.field({
      type: [WebhookDeliveryType],
      description: 'The attempts of this page, newest first',
      resolve: (p) => p.deliveries,
    }),
    endCursor: t.string({
      nullable: true,
      description: 'Pass as `after` for the next (older) page; null: no more',
      resolve: (p) => p.endCursor,
    }),
    hasNextPage: t.boolean({
      description: 'True when there are older attempts (after endCursor)',
      resolve: (p) => p.hasNextPage,
    }),
  }),
});

const webhooksOf = (ctx: GraphqlContext) => {
  const lookup = requireLookup(ctx);
  return { account: lookup.account, webhooks: ctx.background.webhooks };
};

builder.queryField('webhookDeliveries', (t) =>
  t.field({
    type: DeliveryPageType,
    description:
      "The account's webhook delivery attempts of the last week, newest first (REST: GET /v1/webhooks/deliveries). Free: no lookup is made.",
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: DEFAULT_DELIVERIES_PAGE,
        description: `Attempts per page, 1 to ${MAX_DELIVERIES_PAGE}`,
      }),
      after: t.arg.string({ description: 'The endCursor of the page before' }),
    },
    resolve: async (_root, args, ctx) => {
      try {
        const limit = deliveryPageSize(args.first, 'first');
        const cursor = deliveryCursor(args.after, 'after');
        const { account, webhooks } = webhooksOf(ctx);
        const page = await webhooks.deliveries(account, { limit, cursor });
        return { deliveries: page.deliveries, endCursor: page.next_cursor, hasNextPage: page.next_cursor !== null };
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
);

builder.mutationField('redeliverWebhook', (t) =>
  t.field({
    type: WebhookDeliveryType,
    description:
      "Sends an attempt's event again now (REST: POST /v1/webhooks/deliveries/<id>/redeliver): the same webhook-id and body to the same URL, one attempt, recorded as a redelivery. The attempt whose event is sent; another account's or an unknown id is the error not_found.",
    args: { id: t.arg.id({ required: true, description: 'The attempt id (WebhookDelivery.id)' }) },
    resolve: async (_root, args, ctx) => {
      const { account, webhooks } = webhooksOf(ctx);
      return webhooks.redeliver(account, String(args.id)).catch(rethrowCoded);
    },
  }),
);
