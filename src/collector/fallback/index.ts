// The fallback provider: a scraping actor on a third-party platform, used when the own collector cannot read the site.
export { FallbackProvider, type FallbackProviderOptions } from './provider.js';
export { mapItem, missingCoreFields } from './actor-item.js';
