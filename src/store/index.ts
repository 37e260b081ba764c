export type * from './types.js';
export { MemoryStore } from './memory.js';
export { DEFAULT_HISTORY_LIMITS } from './history-store.js';
