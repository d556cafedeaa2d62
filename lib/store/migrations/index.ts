import * as accounts from './001-accounts.js';
import * as requestLog from './002-request-log.js';
import * as scrapeCache from './003-scrape-cache.js';
import * as sessions from './004-sessions.js';
import * as usage from './005-usage.js';
import * as batch from './006-batch.js';
import * as holdExpiry from './007-hold-expiry.js';
import * as cacheAsText from './008-cache-as-text.js';
import * as sharedLimits from './010-shared-limits.js';
import * as dashboardAccounts from './012-dashboard-accounts.js';
import * as dashboardDefaultKeys from './013-dashboard-default-keys.js';
import * as batchJobTotals from './014-batch-job-totals.js';
import * as settledStripes from './015-settled-stripes.js';
import * as openHoldIndexes from './016-open-hold-indexes.js';
import * as dashboardHardening from './017-dashboard-hardening.js';
import * as proxyPools from './018-proxy-pools.js';
import * as sealedBatchParams from './019-sealed-batch-params.js';
import * as crawl from './034-crawl.js';
import * as crawlPacing from './035-crawl-pacing.js';
import * as crawlHosts from './036-crawl-hosts.js';
import * as proxyDomainHealthAge from './037-proxy-domain-health-age.js';
import * as crawlKindAndParents from './038-crawl-kind-and-parents.js';

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
  { version: 6, name: 'batch', up: batch.up },
  { version: 7, name: 'hold-expiry', up: holdExpiry.up },
  { version: 8, name: 'cache-as-text', up: cacheAsText.up },
  { version: 10, name: 'shared-limits', up: sharedLimits.up },
  { version: 12, name: 'dashboard-accounts', up: dashboardAccounts.up },
  { version: 13, name: 'dashboard-default-keys', up: dashboardDefaultKeys.up },
  { version: 14, name: 'batch-job-totals', up: batchJobTotals.up },
  { version: 15, name: 'settled-stripes', up: settledStripes.up },
  { version: 16, name: 'open-hold-indexes', up: openHoldIndexes.up },
  { version: 17, name: 'dashboard-hardening', up: dashboardHardening.up },
  { version: 18, name: 'proxy-pools', up: proxyPools.up },
  { version: 19, name: 'sealed-batch-params', up: sealedBatchParams.up },
  { version: 34, name: 'crawl', up: crawl.up },
  { version: 35, name: 'crawl-pacing', up: crawlPacing.up },
  { version: 36, name: 'crawl-hosts', up: crawlHosts.up },
  { version: 37, name: 'proxy-domain-health-age', up: proxyDomainHealthAge.up },
  { version: 38, name: 'crawl-kind-and-parents', up: crawlKindAndParents.up },
].sort((a, b) => a.version - b.version);
