export type * from './types.js';
export { MemoryStore } from './memory.js';
export { createStore } from './create.js';
