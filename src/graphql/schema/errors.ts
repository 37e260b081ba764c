// The LookupError type: a failed lookup as data, with the spec's code (the same codes, messages and
// details REST puts in its error envelope). Its values are plain error bodies, never Error
// instances (an Error returned by a resolver is treated by GraphQL as a thrown field error).
import { ErrorBody, type LookupError } from '../../contract/index.js';
import { builder } from '../builder.js';
import { JsonScalar } from './scalars.js';

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

export const LookupErrorType = builder.objectRef<LookupErrorValue>('LookupError').implement({
  description:
    "A lookup that failed, as data. `code` is the stable spec code (REST: the error envelope's `error.code`); switch on it, not on the message.",
  fields: (t) => ({
    code: t.exposeString('code', { description: ErrorBody.properties.code.description }),
    message: t.exposeString('message', { description: 'What happened, for people' }),
    details: t.field({
      type: JsonScalar,
      nullable: true,
      description: 'Code-specific details, e.g. `candidate` for address_ambiguous or `upgrade_url` for credits_exhausted (REST: `error.details`)',
      resolve: (e) => e.details ?? null,
    }),
    retryAfter: t.int({
      nullable: true,
      description: 'Seconds to wait before retrying, when the failure says so (REST: the retry-after header of a single lookup)',
      resolve: (e) => e.retryAfter ?? null,
    }),
  }),
});
