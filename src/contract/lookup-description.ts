// How a single lookup is asked for and billed, as the faces' descriptions say it: written once here
// so the OpenAPI document, the GraphQL schema, the landing page and the MCP tools cannot disagree.
import { LOCATOR_KEYS } from './inputs.js';

/** A duration in the largest whole unit (86400000 → "24 h"). */
export function humanMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/**
 * The rule of a single lookup: which locators, what it costs. `cacheLifetime` is how long a hit
 * lasts as the text can know it: the configured figure (`24 h`) where the text is built per service,
 * or where it is set where the text is static (the printed GraphQL schema).
 */
export const lookupDescription = (cacheLifetime: string): string =>
  `Send exactly one of ${LOCATOR_KEYS.join(', ')}. A live lookup costs 1 credit; a cache hit (${cacheLifetime}) costs 0.`;
