import type { EngineName } from './engines.js';

/** NATS subjects and queue groups of the gateway <-> worker protocol, version 1. */
export const SUBJECT_PREFIX = 'trawler.v1';

export function scrapeSubject(engine: EngineName): string {
  return `${SUBJECT_PREFIX}.scrape.${engine}`;
}

/** Every worker of an engine joins this queue group, so each job reaches exactly one of them. */
export function engineQueueGroup(engine: EngineName): string {
  return `trawler-${engine}`;
}

export const WORKER_HEARTBEAT_SUBJECT = `${SUBJECT_PREFIX}.workers.heartbeat`;
export const WORKER_LEAVE_SUBJECT = `${SUBJECT_PREFIX}.workers.leave`;
/** Gateways ask here on start so workers announce themselves without waiting a heartbeat period. */
export const WORKER_PROBE_SUBJECT = `${SUBJECT_PREFIX}.workers.probe`;
