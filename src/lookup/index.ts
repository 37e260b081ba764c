export { createRequestContext, openRequest } from './context.js';
export type { CoreDeps, RequestContext, ContextOptions } from './types.js';
export {
  batchItemJson,
  lookupOne,
  lookupBatch,
  parsedLookup,
  startBatch,
  RELEASE,
  LookupOutcome,
  type BatchItemOutcome,
  type BatchRun,
} from './lookup.js';
export { SingleFlight } from './single-flight.js';
export { homeKeyOf } from './keys.js';
export { failureOf } from './failure.js';
export { admitOperation, type Admission } from './admission.js';
export { previewBatch, type BatchPreview } from './preview.js';
export { homeHistory, recordHistory, type HistoryPage } from './history.js';
export { ChargeFeed, type Charged } from './charge-feed.js';
export { clockTimeLimits, type TimeLimitKind, type TimeLimits } from './time-limits.js';
