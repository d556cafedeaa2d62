/** The client commands' exit codes (README "Client CLI"). */
export const EXIT = {
  ok: 0,
  /** The service answered with a problem, the connection failed, or retries ran out. */
  failed: 1,
  /** Bad command line or parameters refused locally before anything was sent. */
  usage: 2,
  /** A batch job ended with failed or skipped items, or as failed or cancelled. */
  batchIncomplete: 3,
  /** 401/403: the key is missing, invalid, revoked, expired or lacks the scope. */
  auth: 4,
  /** 402 ERR::LIMIT::QUOTA_EXCEEDED: never retried. */
  quota: 5,
  /** Stopped by Ctrl-C (SIGINT) or SIGTERM. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Raised for a bad command line; printed without a stack, exit code 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

/** Ends the command with a given code after its output was already printed. */
export class ExitWith extends Error {
  override name = 'ExitWith';
  constructor(readonly code: ExitCode) {
    super(`exit ${code}`);
  }
}
