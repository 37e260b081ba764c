export * from './schema.js';
export * from './sections.js';
export * from './inputs.js';
export * from './lookup-description.js';
export * from './errors.js';
export * from './listing-url.js';
export * from './validate.js';
export * from './watches.js';
