import { Command } from 'commander';
import { contextFrom, printJson, wholeNumber, withConnectionOptions, type ConnectionFlags } from './context.js';
import { credits, table } from './table.js';
import { CliUsageError } from './exit-codes.js';

interface RequestLogEntry {
  id: string;
  created_at: string;
  engine?: string;
  status: string;
  http_status?: number | null;
  error_code?: string | null;
  credits_micro?: number;
  url?: string;
}

interface RequestsFlags extends ConnectionFlags {
  errors?: boolean;
  status?: string;
  limit?: string;
  allProjects?: boolean;
}

/** `trawler requests [--errors] [ID]`: the request log (GET /v1/requests, GET /v1/requests/{id}). */
export function requestsCommand(): Command {
  const command = new Command('requests')
    .description('list recent request log entries, or show one by id')
    .argument('[id]', 'a request id (X-Request-Id)')
    .option('--errors', 'only requests that did not succeed (only_errors=true)')
    .option('--status <status>', 'success, failed, timeout, blocked, rejected or cancelled')
    .option('--limit <n>', 'entries to list (1-200)', '50')
    .option('--all-projects', 'every project of the organization (needs scope read)');
  withConnectionOptions(command);
  return command.action(async (id: string | undefined, flags: RequestsFlags) => {
    const context = contextFrom(flags);
    if (id) {
      printJson(context, await context.client.json('GET', `/v1/requests/${encodeURIComponent(id)}`));
      return;
    }
    const page = await context.client.json<{ data: RequestLogEntry[]; page: Record<string, unknown> }>('GET', '/v1/requests', {
      query: {
        limit: listLimit(flags.limit),
        only_errors: flags.errors ? 'true' : undefined,
        status: flags.status,
        all_projects: flags.allProjects ? 'true' : undefined,
      },
    });
    if (context.json) return printJson(context, page);
    const rows = page.data.map((e) => [e.created_at, e.id, e.status, e.http_status, e.engine, credits(e.credits_micro ?? 0), e.error_code, e.url]);
    context.out.write(`${table(['CREATED', 'ID', 'STATUS', 'TARGET', 'ENGINE', 'CREDITS', 'ERROR', 'URL'], rows)}\n`);
    if (page.page.has_more) {
      const more = (Number(flags.limit ?? '50') < 200 ? 'raise --limit (at most 200) or ' : '') + 'page with the API cursor (page.next_before, page.next_before_id)';
      context.err.write(`trawler: more entries exist; ${more}\n`);
    }
  });
}

interface WorkersView {
  workers: Array<{ id: string; engine: string; pool: string; host: string; status: string; capacity: number; in_flight: number; last_seen_at: string }>;
  engines: Record<string, { workers: number; capacity: number; in_flight: number }>;
}

/** `trawler workers`: the fleet as the gateway sees it (GET /v1/workers). */
export function workersCommand(): Command {
  const command = new Command('workers').description('engine workers the gateway sees, and capacity per engine');
  withConnectionOptions(command);
  return command.action(async (flags: ConnectionFlags) => {
    const context = contextFrom(flags);
    const fleet = await context.client.json<WorkersView>('GET', '/v1/workers');
    if (context.json) return printJson(context, fleet);
    const engines = Object.entries(fleet.engines).map(([engine, e]) => [engine, e.workers, e.capacity, e.in_flight]);
    context.out.write(`${table(['ENGINE', 'WORKERS', 'CAPACITY', 'IN FLIGHT'], engines)}\n\n`);
    const workers = fleet.workers.map((w) => [w.id, w.engine, w.pool, w.status, `${w.in_flight}/${w.capacity}`, w.host, w.last_seen_at]);
    context.out.write(`${table(['WORKER', 'ENGINE', 'POOL', 'STATUS', 'BUSY', 'HOST', 'LAST SEEN'], workers)}\n`);
  });
}

interface UsageFlags extends ConnectionFlags {
  environment?: string;
  summary?: boolean;
  reconciliation?: boolean;
  from?: string;
  to?: string;
  groupBy?: string;
}

/** `trawler usage`: the allowance period (GET /v1/usage), or --summary / --reconciliation (scope read). */
export function usageCommand(): Command {
  const command = new Command('usage')
    .description('credits used this allowance period (scope read)')
    .option('--environment <env>', 'live or test', 'live')
    .option('--summary', 'per-day (or --group-by) totals: GET /v1/usage/summary')
    .option('--from <date-time>', 'summary window start')
    .option('--to <date-time>', 'summary window end')
    .option('--group-by <list>', 'summary grouping, e.g. day,engine')
    .option('--reconciliation', 'ledger against holds and request log: GET /v1/usage/reconciliation');
  withConnectionOptions(command);
  return command.action(async (flags: UsageFlags) => {
    const context = contextFrom(flags);
    const environment = flags.environment;
    if (flags.summary) {
      const summary = await context.client.json<UsageSummary>('GET', '/v1/usage/summary', { query: { environment, from: flags.from, to: flags.to, group_by: flags.groupBy } });
      if (context.json) return printJson(context, summary);
      return void context.out.write(`${summaryTable(summary)}\n`);
    }
    if (flags.reconciliation) return printJson(context, await context.client.json('GET', '/v1/usage/reconciliation', { query: { environment } }));
    const usage = await context.client.json<Record<string, unknown> & { period: { start: string; end: string } }>('GET', '/v1/usage', { query: { environment } });
    if (context.json) return printJson(context, usage);
    const micro = (name: string) => credits(Number(usage[name] ?? 0));
    context.out.write(
      [
        `period     ${usage.period.start} -> ${usage.period.end} (${String(usage.environment)})`,
        `allowance  ${micro('allowance_micro')} credits`,
        `spent      ${micro('spent_micro')} credits`,
        `reserved   ${micro('reserved_micro')} credits (held by running work)`,
        `remaining  ${micro('remaining_micro')} credits`,
        `limits     ${JSON.stringify(usage.limits)}`,
      ].join('\n') + '\n',
    );
  });
}

/** `--limit` of `requests`: 1 to 200, what the service pages by (0 would read as its default of 50). */
function listLimit(raw: string | undefined): number {
  const limit = wholeNumber('--limit', raw ?? '50', 200);
  if (limit < 1) throw new CliUsageError(`--limit must be from 1 to 200, got "${raw}"`);
  return limit;
}

interface UsageSummary {
  from: string;
  to: string;
  environment: string;
  rows: Array<Record<string, unknown> & { requests: number; billed_requests: number; credits_charged_micro: number }>;
  totals?: { requests?: number; billed_requests?: number; credits_charged_micro?: number };
}

/** GET /v1/usage/summary as a table: the group keys, then requests, billed and credits, and a total line. */
function summaryTable(summary: UsageSummary): string {
  const keys = ['day', 'engine', 'project_id'].filter((key) => summary.rows.some((row) => row[key] !== undefined));
  const rows = summary.rows.map((row) => [...keys.map((key) => row[key] as string | undefined), row.requests, row.billed_requests, credits(row.credits_charged_micro)]);
  const totals = summary.totals ?? {};
  rows.push([...keys.map((_key, index) => (index === 0 ? 'total' : '')), totals.requests ?? 0, totals.billed_requests ?? 0, credits(totals.credits_charged_micro ?? 0)]);
  return `${summary.from} -> ${summary.to} (${summary.environment})\n${table([...keys, 'requests', 'billed', 'credits'], rows)}`;
}
