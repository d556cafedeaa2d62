import * as accounts from './001-accounts.js';
import * as requestLog from './002-request-log.js';
import * as scrapeCache from './003-scrape-cache.js';
import * as sessions from './004-sessions.js';
import * as usage from './005-usage.js';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

/** Append only: a released migration is never edited. */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'accounts', up: accounts.up },
  { version: 2, name: 'request-log', up: requestLog.up },
  { version: 3, name: 'scrape-cache', up: scrapeCache.up },
  { version: 4, name: 'sessions', up: sessions.up },
  { version: 5, name: 'usage', up: usage.up },
].sort((a, b) => a.version - b.version);
