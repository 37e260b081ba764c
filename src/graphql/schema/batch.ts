// Many homes: Query.properties, the GraphQL face of POST /v1/portal/batch. Items are parsed by the
// contract's batch parser and looked up by the core's startBatch, in the request's one context
// (one DataLoader: duplicates, and homes also asked for by Query.property, are read and billed once).
import {
  BATCH_QUERY_FIELDS,
  BatchRequest,
  BatchResult,
  BatchTotals,
  ITEM_OPTION_FIELDS,
  LOCATOR_FIELDS,
  parseBatchBody,
  parseDryRun,
  type BatchItemResult as ParsedItem,
  type BatchMeta as BatchMetaShape,
  type BatchPreviewItem,
  type BatchPreviewMeta,
  type BatchResult as BatchResultShape,
  type LookupOptions,
} from '../../contract/index.js';
import { previewBatch, startBatch, type BatchPreview, type BatchRun } from '../../lookup/index.js';
import { builder } from '../builder.js';
import { rawOnlyWhenSelected, streamRequested } from '../selection.js';
import { contractArgs, contractInputFields, planInputs, restNamed, type TypeMap } from '../typebox.js';
import { LookupErrorType } from './errors.js';
import { contractTypes, implementFromContract, requireLookup, rethrowCoded } from './shared.js';

// Not @oneOf: an item carries its own maxAge beside its locator; exactly one locator is the
// validator's rule (a per-item bad_param, as REST's).
export const LookupItemInput = builder.inputType('LookupItem', {
  description:
    'One home to look up: exactly one of url, address, zpid, and optionally its own maxAge (REST: a batch item object).',
  fields: (t) =>
    contractInputFields(t, [
      ...planInputs(LOCATOR_FIELDS, contractTypes, 'LookupItem', { optional: true }),
      ...planInputs(ITEM_OPTION_FIELDS, contractTypes, 'LookupItem'),
    ]),
});

/** Arguments under the contract's names, the items' fields too (`maxAge` → `max_age`): the batch parser's input. */
function restNamedBody(args: Record<string, unknown>): Record<string, unknown> {
  const body = restNamed(args);
  return Array.isArray(body.items)
    ? {
        ...body,
        items: body.items.map((i: unknown) =>
          i && typeof i === 'object' ? restNamed(i as Record<string, unknown>) : i,
        ),
      }
    : body;
}

/** GraphQL has no string-or-object input: LookupItem (the object forms) stands for the contract's BatchItem. */
const batchInputTypes: TypeMap = {
  ...contractTypes,
  inputs: { BatchItem: { ref: LookupItemInput, name: 'LookupItem' } },
};

export const BatchItemResultType = builder.objectRef<BatchResultShape | BatchPreviewItem>('BatchItemResult');
export const BatchMetaType = builder.objectRef<BatchMetaShape | BatchPreviewMeta>('BatchMeta');

/** A batch under way, or a dry run's preview (dryRun: true): the same fields, the preview's set. */
export const BatchLookupType = builder.objectRef<BatchRun | BatchPreview>('BatchLookup');

const batchTypes: TypeMap = {
  ...contractTypes,
  objects: {
    ...contractTypes.objects,
    ErrorBody: { ref: LookupErrorType, name: 'LookupError', description: 'Why this item failed; null when ok' },
  },
};

implementFromContract(BatchItemResultType, BatchResult, {
  description:
    'The result of one item, in its own right: one failed item never fails the batch (REST: an element of data).',
  types: batchTypes,
});
implementFromContract(BatchMetaType, BatchTotals, {
  description:
    'Totals of the batch (REST: meta). Dry run: creditsEstimate, creditsAvailable and affordable are set, succeeded and failed count the items that would be looked up or fail without a read, cacheHits those that would cost 0, credits is 0 (REST: BatchPreviewMeta).',
  types: batchTypes,
});

/** Each result as soon as it settles (for @stream): the slowest home no longer holds back the rest. */
async function* inCompletionOrder<T>(promises: readonly Promise<T>[]): AsyncGenerator<T> {
  const pending = new Map(promises.map((p, i) => [i, p.then((value) => ({ i, value }))]));
  while (pending.size > 0) {
    const { i, value } = await Promise.race(pending.values());
    pending.delete(i);
    yield value;
  }
}

BatchLookupType.implement({
  description:
    'The results of Query.properties (REST: the 200 body of POST /v1/portal/batch; `data` is called `results` here).',
  fields: (t) => ({
    results: t.field({
      type: [BatchItemResultType],
      description:
        'One result per item, each with its `index`. In item order; with @stream, in the order the homes finish (read `index`), so the first homes arrive while slow ones are still being read.',
      resolve: (run, _args, _ctx, info) => {
        if (!('results' in run)) return run.data;
        return streamRequested(info) ? inCompletionOrder(run.results) : Promise.all(run.results);
      },
    }),
    meta: t.field({ type: BatchMetaType, description: 'Totals of the batch', resolve: (run) => run.meta }),
  }),
});

builder.queryField('properties', (t) =>
  t.field({
    type: BatchLookupType,
    // Nullable: a refused batch (bad_body) leaves the operation's other fields standing.
    nullable: true,
    description:
      'Up to 50 homes (REST: POST /v1/portal/batch). Each item is looked up exactly as Query.property would; failed items come back as results with ok: false. All lookups of one operation (property fields and properties items together) count against the limit of 50.',
    // The contract's batch body (items, status, raw) and query (dryRun): the same fields, limits and descriptions as REST's.
    args: contractArgs(
      t,
      planInputs({ ...BatchRequest.properties, ...BATCH_QUERY_FIELDS }, batchInputTypes, 'properties'),
    ),
    resolve: (_root, args, ctx, info) => {
      const lookup = requireLookup(ctx);
      const { dryRun, ...body } = args as Record<string, unknown>;
      let parsed: { items: ParsedItem[]; options: LookupOptions };
      try {
        // The contract's batch parser: bad_body for no items, too_many_items past 50, per-item errors in place.
        // Arguments left out are absent or null, which the parser reads as not sent.
        parsed = parseBatchBody(restNamedBody(body));
      } catch (e) {
        rethrowCoded(e);
      }
      // A preview prices the batch as it would be sent: raw as given (a hit without its raw record costs 1).
      if (parseDryRun(dryRun, false))
        return previewBatch(lookup, parsed.items, parsed.options, ctx.admission).catch(rethrowCoded);
      return startBatch(
        lookup,
        parsed.items,
        rawOnlyWhenSelected(parsed.options, info, ['results', 'data', 'raw']),
        ctx.admission,
      );
    },
  }),
);
