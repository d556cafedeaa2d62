import type { Db } from '../../lib/store/db.js';

/**
 * New batch work in this process (a submission, an append, a retry) wakes the dispatchers working on
 * the same store at once instead of on their next poll (docs/batch.md "Dispatch"). Keyed by the store
 * handle, so two embedded services in one process never wake each other. Other gateways find the work
 * on their poll.
 */
const listeners = new WeakMap<Db, Set<() => void>>();

export function onBatchWork(db: Db, wake: () => void): () => void {
  let set = listeners.get(db);
  if (!set) listeners.set(db, (set = new Set()));
  set.add(wake);
  return () => set.delete(wake);
}

export function signalBatchWork(db: Db): void {
  for (const wake of listeners.get(db) ?? []) wake();
}
