export * from './engines.js';
export * from './subjects.js';
export * from './scrape.js';
export * from './membership.js';
export * from './worker-envelope.js';
export * from './browser.js';
