export { createRequestContext, openRequest, type CoreDeps, type RequestContext, type ContextOptions } from './context.js';
export { lookupOne, lookupBatch, startBatch, RELEASE, LookupOutcome, type BatchItemOutcome, type BatchRun } from './lookup.js';
export { SingleFlight } from './single-flight.js';
export { homeKeyOf } from './keys.js';
