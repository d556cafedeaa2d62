import { Command, Option } from 'commander';
import { ApiClient } from './client.js';
import { CliUsageError } from './exit-codes.js';
import { DEFAULT_RETRY_POLICY } from './retry.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080';

/** Options every client command takes; flags win over TRAWLER_API_URL / TRAWLER_API_KEY. */
export interface ConnectionFlags {
  apiUrl?: string;
  apiKey?: string;
  json?: boolean;
  retries?: string;
  timeout?: string;
}

export interface CommandContext {
  client: ApiClient;
  /** `--json`: one JSON document on stdout, nothing on stderr but errors. */
  json: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export function withConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--api-url <url>', 'gateway address (env TRAWLER_API_URL, default ' + DEFAULT_API_URL + ')'))
    .addOption(new Option('--api-key <key>', 'API key (env TRAWLER_API_KEY)'))
    .option('--json', 'machine-readable: one JSON document on stdout, no progress or notes on stderr')
    .option('--retries <n>', 'retries of a retryable error (docs/cli.md "Retries")', String(DEFAULT_RETRY_POLICY.maxRetries))
    .option('--timeout <seconds>', 'per-attempt time limit, 0 for none', '300');
}

export function contextFrom(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): CommandContext {
  const apiUrl = flags.apiUrl ?? nonBlank(env.TRAWLER_API_URL) ?? DEFAULT_API_URL;
  try {
    const parsed = new URL(apiUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new CliUsageError(`--api-url must be an http(s) URL, got "${apiUrl}"`);
  }
  const json = flags.json === true;
  const err = process.stderr;
  const maxRetries = wholeNumber('--retries', flags.retries ?? '3', 10);
  const timeoutMs = wholeNumber('--timeout', flags.timeout ?? '300', 86_400) * 1000;
  const client = new ApiClient({
    apiUrl,
    apiKey: flags.apiKey ?? nonBlank(env.TRAWLER_API_KEY),
    timeoutMs,
    retry: { ...DEFAULT_RETRY_POLICY, maxRetries },
    onRetry: ({ problem, delayMs, retry, maxRetries: max }) => {
      if (json) return;
      const what = problem.status === 0 ? 'no answer' : `HTTP ${problem.status} ${problem.code ?? ''}`.trim();
      err.write(`trawler: ${what}; retry ${retry} of ${problem.status === 0 ? 1 : max} in ${(delayMs / 1000).toFixed(1)} s\n`);
    },
  });
  return { client, json, out: process.stdout, err, env };
}

export function wholeNumber(flag: string, raw: string, max: number): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > max) throw new CliUsageError(`${flag} must be a whole number from 0 to ${max}, got "${raw}"`);
  return Number(raw);
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** Pretty JSON for people, one compact line under --json. */
export function printJson(context: CommandContext, value: unknown): void {
  context.out.write(`${context.json ? JSON.stringify(value) : JSON.stringify(value, null, 2)}\n`);
}
