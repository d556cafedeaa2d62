import { z } from 'zod';
import { BrowserSessionsSchema } from './browser.js';
import { EngineNameSchema } from './engines.js';

export const HEARTBEAT_TYPE = 'trawler.worker.heartbeat.v1';
export const LEAVE_TYPE = 'trawler.worker.leave.v1';

/** What every worker publishes about itself every heartbeat period. */
export const WorkerHeartbeatSchema = z.object({
  type: z.literal(HEARTBEAT_TYPE),
  id: z.string(),
  engine: EngineNameSchema,
  pool: z.string(),
  host: z.string(),
  version: z.string(),
  capacity: z.number().int(),
  in_flight: z.number().int(),
  started_at: z.string(),
  sent_at: z.string(),
  heartbeat_interval_ms: z.number().int(),
  /** True once the worker stopped taking new work (SIGTERM received). */
  draining: z.boolean(),
  /** Remote-browser connections (GET /v1/browser) this worker relays; absent when it serves none. */
  browser_sessions: BrowserSessionsSchema.optional(),
});
export type WorkerHeartbeat = z.infer<typeof WorkerHeartbeatSchema>;

export const WorkerLeaveSchema = z.object({
  type: z.literal(LEAVE_TYPE),
  id: z.string(),
});
export type WorkerLeave = z.infer<typeof WorkerLeaveSchema>;
