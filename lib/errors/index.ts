export * from './catalogue.js';
export * from './service-error.js';
export * from './problem.js';
