export * from './params.js';
export * from './engine-selection.js';
export * from './types.js';
export { HOP_BY_HOP_HEADERS, URL_MAX_CHARS } from './fields.js';
