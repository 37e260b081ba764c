export type * from './types.js';
export { MemoryStore } from './memory.js';
