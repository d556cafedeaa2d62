/**
 * How one process shares its PostgreSQL pool (docs/batch.md "Database connections"): requests keep
 * REQUEST_CONNECTIONS, the batch dispatcher gets a share that grows with BATCH_DISPATCH_CAPACITY and
 * runs its statements through gatedDb, so it waits in-process, never on the pool's timeout.
 */
export const REQUEST_CONNECTIONS = 10;
const MIN_DISPATCHER_CONNECTIONS = 2;
const MAX_DISPATCHER_CONNECTIONS = 25;
const ITEMS_PER_DISPATCHER_CONNECTION = 4;

export interface PoolSettings {
  DATABASE_POOL_SIZE?: number;
  BATCH_DISPATCH_CAPACITY: number;
}

function capacityShare(capacity: number): number {
  const wanted = Math.ceil(capacity / ITEMS_PER_DISPATCHER_CONNECTION);
  return Math.min(MAX_DISPATCHER_CONNECTIONS, Math.max(MIN_DISPATCHER_CONNECTIONS, wanted));
}

export function databasePoolSize(settings: PoolSettings): number {
  return settings.DATABASE_POOL_SIZE ?? REQUEST_CONNECTIONS + capacityShare(settings.BATCH_DISPATCH_CAPACITY);
}

/** Connections the dispatcher may use at once: its share, never more than half of an explicitly small pool. */
export function dispatcherConnections(settings: PoolSettings): number {
  return Math.min(capacityShare(settings.BATCH_DISPATCH_CAPACITY), Math.max(1, Math.floor(databasePoolSize(settings) / 2)));
}
