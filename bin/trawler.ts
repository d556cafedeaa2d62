#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../lib/config.js';
import { toServiceError } from '../lib/errors/index.js';
import { DEPLOYABLE_ENGINES, ENGINE_NAMES, type EngineName } from '../lib/protocol/index.js';
import { StoreLockedError } from '../lib/store/data-dir-lock.js';
import { isClientCommand } from './client-commands.js';

// Server code loads only for server commands, so the API client starts fast.
const serverModules = async () => ({ ...(await import('../worker/engines.js')), ...(await import('./admin.js')), ...(await import('./serve.js')) });

const usage = async () => {
  return `usage: trawler <command>

  all                          gateway and engine workers in one process (the default of npm start)
  gateway                      the HTTP gateway only (engines join over NATS_URL)
  worker --engine <name>       one engine pool member (${DEPLOYABLE_ENGINES.join(', ')}); needs NATS_URL
  migrate                      apply database migrations and exit
  keys create --project <id> [--env live|test] [--scopes scrape,batch,...] [--name N] [--expires <date-time>]
  keys list [--org <id>]
  keys revoke <key id or displayed prefix> [--org <id>]  (a prefix several keys share revokes none)
  orgs list | orgs suspend <id> | orgs activate <id>
  operator                     the Kubernetes operator (ScrapeEngine, WorkerPool); see docs/operator.md

API client (talks to a gateway: TRAWLER_API_URL, TRAWLER_API_KEY; see the README's "Client CLI"):
  scrape <url> [--<parameter> ...] [-o FILE]       one scrape; every scrape parameter is a flag
  batch run <file|-> [-o results.ndjson]           submit URLs or JSONL items, follow with progress
  batch status|results|cancel|retry <id>
  crawl <url> [--limit N] [--max-depth N] [-o FILE]  crawl a site, follow with progress; crawl-status <id>
  map <url> [--search TEXT] [--limit N]            a site's URLs, one a line
  requests [--errors] [id]  |  workers  |  usage
  mcp                                              MCP server on stdio for agents (docs/mcp.md)
  trawler <command> --help                         flags of a client command
  trawler --version                                the version

Configuration comes from the environment; see the README's table.`;
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${await usage()}\n`);
    return;
  }
  if (command === '--version' || command === '-V' || command === 'version') {
    const { packageVersion } = await import('../lib/version.js');
    process.stdout.write(`trawler ${packageVersion()}\n`);
    return;
  }
  if (isClientCommand(command)) {
    const { runClient } = await import('../cli/main.js');
    process.exitCode = await runClient(argv);
    return;
  }
  if (command === 'operator') {
    const { runOperator } = await import('../operator/main.js');
    return runOperator(process.env);
  }
  const config = loadConfig(process.env);
  const { embeddedEngines, runKeysCommand, runMigrate, runOrgsCommand, serve } = await serverModules();
  switch (command) {
    case 'all':
      return serve(config, { gateway: true, engines: embeddedEngines(config) }, 'trawler');
    case 'gateway':
      return serve(config, { gateway: true, engines: [] }, 'trawler-gateway');
    case 'worker':
      return serve(config, { gateway: false, engines: [await workerEngine(rest, config)] }, 'trawler-worker');
    case 'migrate':
      return runMigrate(config);
    case 'keys':
      return runKeysCommand(config, rest);
    case 'orgs':
      return runOrgsCommand(config, rest);
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function workerEngine(args: string[], config: Config): Promise<EngineName> {
  const { values } = parseArgs({ args, options: { engine: { type: 'string' } }, strict: true });
  const engine = values.engine?.toLowerCase();
  if (!engine || !(ENGINE_NAMES as readonly string[]).includes(engine)) {
    throw new UsageError(`--engine must be one of ${DEPLOYABLE_ENGINES.join(', ')}`);
  }
  if (!(DEPLOYABLE_ENGINES as readonly string[]).includes(engine)) throw new UsageError(`engine ${engine} is not deployable in this build`);
  if (!config.NATS_URL) throw new UsageError('a worker on its own needs NATS_URL (use "trawler all" for one process)');
  return engine as EngineName;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

main(process.argv.slice(2)).catch(async (error: unknown) => {
  if (error instanceof UsageError || error instanceof ConfigError) {
    process.stderr.write(`trawler: ${error.message}\n\n${await usage()}\n`);
    process.exit(2);
  }
  if (error instanceof StoreLockedError) {
    process.stderr.write(`trawler: ${error.message}\n`);
    process.exit(3);
  }
  if (toServiceError(error).code === 'ERR::INTERNAL::UNAVAILABLE') {
    // Expected during an outage: one line saying what to check, no stack; the supervisor restarts the process.
    const reason = error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error);
    process.stderr.write(`trawler: cannot reach PostgreSQL (DATABASE_URL) or NATS (NATS_URL) at start: ${reason}\n`);
    process.exit(1);
  }
  process.stderr.write(`trawler: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
