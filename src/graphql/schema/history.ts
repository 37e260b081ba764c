// A home's history over GraphQL (docs/history.md): Query.propertyHistory and PortalProperty.history, each a
// page of the home's timeline, newest first. The same core as REST's GET /v1/portal/property/history
// (homeHistory, recordHistory) and the same readers (contract/history.ts); HistoryEvent's fields are the
// contract's in camelCase. Free of credits; each takes one unit of the key's rate window.
import {
  DEFAULT_HISTORY_PAGE,
  HistoryEvent,
  historyCursor,
  historyLimit,
  LOCATOR_FIELDS,
  MAX_HISTORY_PAGE,
  parseLocator,
  type HistoryEvent as HistoryEventShape,
} from '../../contract/index.js';
import { homeHistory, recordHistory, type HistoryPage } from '../../lookup/index.js';
import { builder } from '../builder.js';
import { contractArgs, planInputs } from '../typebox.js';
import { contractTypes, implementFromContract, PropertyType, requireLookup, rethrowCoded } from './shared.js';

const HistoryEventType = builder.objectRef<HistoryEventShape>('HistoryEvent');
implementFromContract(HistoryEventType, HistoryEvent);

const PropertyHistoryType = builder.objectRef<HistoryPage>('PropertyHistory');
PropertyHistoryType.implement({
  description:
    "A page of a home's history, newest first (REST: GET /v1/portal/property/history). Read from the service's own records: no live read, no credit.",
  fields: (t) => ({
    cacheKey: t.string({
      description: 'The key the home is kept under (`zpid:<zpid>`; REST: meta.cache_key)',
      resolve: (p) => p.cacheKey,
    }),
    events: t.field({
      type: [HistoryEventType],
      description: 'The events of this page, newest first',
      resolve: (p) => p.events,
    }),
    endCursor: t.string({
      nullable: true,
      description: "Pass as `after` for the next (older) page: this page's last event id; null: no more",
      resolve: (p) => p.nextCursor,
    }),
    hasNextPage: t.boolean({
      description: 'True when there are older events (after endCursor)',
      resolve: (p) => p.nextCursor !== null,
    }),
  }),
});

/** The page arguments, read as REST's limit and cursor are. */
const pageOf = (args: { first?: unknown; after?: unknown }) => ({
  limit: historyLimit(args.first, 'first'),
  cursor: historyCursor(args.after, 'after'),
});

builder.objectField(PropertyType, 'history', (t) =>
  t.field({
    type: PropertyHistoryType,
    // Nullable: a home with no history (or a bad page argument) must not null the lookup that found it.
    nullable: true,
    description:
      "This home's history, newest first (REST: GET /v1/portal/property/history): one event per successful live read. Free of credits; one unit of the key's rate window. A home with no events is the error not_found.",
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: DEFAULT_HISTORY_PAGE,
        description: `Events per page, 1 to ${MAX_HISTORY_PAGE}`,
      }),
      after: t.arg.string({ description: 'The endCursor of the page before' }),
    },
    resolve: async (record, args, ctx) => {
      try {
        return await recordHistory(requireLookup(ctx), record, pageOf(args), ctx.admission);
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
);

builder.queryField('propertyHistory', (t) =>
  t.field({
    type: PropertyHistoryType,
    nullable: true,
    description:
      "A home's history by link, zpid or address (REST: GET /v1/portal/property/history), newest first: one event per successful live read, with its source and what it changed. Read from the service's own records only (an address or building link it cannot map to a home it knows is the error not_found; nothing is read live), free of credits, one unit of the key's rate window.",
    args: {
      ...contractArgs(t, planInputs(LOCATOR_FIELDS, contractTypes, 'propertyHistory', { optional: true })),
      first: t.arg.int({
        required: true,
        defaultValue: DEFAULT_HISTORY_PAGE,
        description: `Events per page, 1 to ${MAX_HISTORY_PAGE}`,
      }),
      after: t.arg.string({ description: 'The endCursor of the page before' }),
    },
    resolve: async (_root, args, ctx) => {
      try {
        // The locator arguments are the contract's (each nullable): the validator answers for them, as on REST.
        const locator = parseLocator(args as Record<string, unknown>);
        return await homeHistory(requireLookup(ctx), locator, pageOf(args), ctx.admission);
      } catch (e) {
        rethrowCoded(e);
      }
    },
  }),
);
