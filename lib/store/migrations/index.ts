import * as accounts from './001-accounts.js';

export interface Migration {
  version: number;
  name: string;
  up: string;
}

/** Append only: a released migration is never edited. */
export const MIGRATIONS: Migration[] = [{ version: 1, name: 'accounts', up: accounts.up }];
