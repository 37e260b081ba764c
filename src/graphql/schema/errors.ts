// The LookupError type: a failed lookup as data, with the spec's code (the same codes, messages and
// details REST puts in its error envelope). Its values are plain error bodies, never Error
// instances (an Error returned by a resolver is treated by GraphQL as a thrown field error).
import { ErrorBody, type LookupError } from '../../contract/index.js';
import { failureOf, type RequestContext } from '../../lookup/index.js';
import { builder } from '../builder.js';
import { JsonScalar } from './scalars.js';

/**
 * A thrown LookupError (errorValue), or a batch item's error body as the core's startBatch builds it,
 * with the item's wait in `details.retry_after` (a batch item has no header of its own).
 */
export interface LookupErrorValue {
  code: string;
  message: string;
  details?: Record<string, unknown>;
  retryAfter?: number;
}

/** A thrown LookupError as the value of the LookupError type. */
export function errorValue(e: LookupError): LookupErrorValue {
  const retryAfter = e.retryAfterSeconds;
  return { ...e.toBody(), ...(retryAfter === undefined ? {} : { retryAfter }) };
}

/**
 * Anything a lookup threw, as the LookupError value: a LookupError as is, anything else as the
 * masked `internal` (logged with the request's logger), as the core's startBatch does for batch items.
 */
export function failureValue(e: unknown, lookup: Pick<RequestContext, 'logger'>): LookupErrorValue {
  return errorValue(failureOf(e, lookup.logger, 'lookup failed'));
}

const retryAfterOf = (e: LookupErrorValue): number | null => {
  if (e.retryAfter !== undefined) return e.retryAfter;
  const wait = e.details?.retry_after;
  return typeof wait === 'number' ? wait : null;
};

export const LookupErrorType = builder.objectRef<LookupErrorValue>('LookupError').implement({
  description:
    "A lookup that failed, as data. `code` is the stable spec code (REST: the error envelope's `error.code`); switch on it, not on the message.",
  fields: (t) => ({
    code: t.exposeString('code', { description: ErrorBody.properties.code.description }),
    message: t.exposeString('message', { description: 'What happened, for people' }),
    details: t.field({
      type: JsonScalar,
      nullable: true,
      description:
        'Code-specific details, e.g. `candidate` for address_ambiguous or `upgrade_url` for credits_exhausted (REST: `error.details`)',
      resolve: (e) => e.details ?? null,
    }),
    retryAfter: t.int({
      nullable: true,
      description:
        'Seconds to wait before retrying, when the failure says so (REST: the retry-after header of a single lookup; `details.retry_after` of a batch item)',
      resolve: retryAfterOf,
    }),
  }),
});
