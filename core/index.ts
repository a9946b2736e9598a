// The public library API of Lightwire's core.
export * from './errors.js';
export * as protocol from './protocol/index.js';
