import type { Ledger } from '../lib/billing/ledger.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/log.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Db } from '../lib/store/db.js';
import type { ApiClient } from './api-client.js';

/** What every dashboard route reads: the store, settings, the sealing box and the way to the API. */
export interface DashboardContext {
  db: Db;
  ledger: Ledger;
  config: Config;
  logger: Logger;
  box: SecretBox;
  api: ApiClient;
  /** The dashboard's own origin, for links it prints (setup, invitations). */
  publicUrl(): string;
}
