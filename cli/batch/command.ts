import { Command } from 'commander';
import { contextFrom, printJson, wholeNumber, withConnectionOptions, type CommandContext, type ConnectionFlags } from '../context.js';
import { CliUsageError, EXIT, ExitWith } from '../exit-codes.js';
import { ensureWritable } from '../output-file.js';
import { addScrapeParameterOptions, scrapeParametersFrom } from '../scrape/parameter-flags.js';
import { readBatchInput } from './input.js';
import { InterruptControl } from './interrupt.js';
import { lineProgress, silentProgress, terminalProgress, type ProgressView } from './progress.js';
import { ResultsSink, writeCompleteResults } from './results.js';
import { MAX_ITEMS_PER_CALL, submitBatch, type BatchJob, type SubmitOutcome } from './submit.js';
import { watchJob, type WatchOutcome } from './watch.js';
import { describeFailures, describeJob, exitCodeOfJob } from './summary.js';

export interface FollowFlags extends ConnectionFlags {
  output?: string;
  content?: boolean;
  pollInterval?: string;
  progressInterval?: string;
  cancelOnInterrupt?: boolean;
}

interface RunFlags extends FollowFlags {
  name?: string;
  concurrency?: string;
  priority?: string;
  maxAttempts?: string;
  failureThreshold?: string;
  creditBudget?: string;
  webhookEndpointId?: string;
  chunkSize?: string;
  detach?: boolean;
}

export function batchCommand(): Command {
  const batch = new Command('batch').description('batch jobs: run a file of URLs with progress, or inspect a job');
  batch.addCommand(runCommand());
  batch.addCommand(simple('status', 'the job object (GET /v1/batch/{id})', async (context, id) => {
    const job = await context.client.json<BatchJob>('GET', `/v1/batch/${id}`);
    if (context.json) printJson(context, job);
    else context.out.write(`${describeJob(job)}\n`);
  }));
  batch.addCommand(simple('cancel', 'cancel the job; running items finish (POST /v1/batch/{id}/cancel)', async (context, id) => {
    printJson(context, await context.client.json('POST', `/v1/batch/${id}/cancel`, { onDrop: 'once' }));
  }));
  batch.addCommand(simple('retry', 'run the failed items again (POST /v1/batch/{id}/retry)', async (context, id) => {
    printJson(context, await context.client.json('POST', `/v1/batch/${id}/retry`, { onDrop: 'never' }));
  }));
  batch.addCommand(resultsCommand());
  return batch;
}

function simple(name: string, description: string, run: (context: CommandContext, id: string) => Promise<void>): Command {
  const command = new Command(name).description(description).argument('<id>', 'batch job id');
  withConnectionOptions(command);
  return command.action(async (id: string, flags: ConnectionFlags) => run(contextFrom(flags), encodeURIComponent(id)));
}

export function followOptions(command: Command, defaultOutput: string): Command {
  return command
    .option('-o, --output <file>', `NDJSON results file, - for stdout (default ${defaultOutput})`)
    .option('--no-content', 'keep the lines as streamed; skip the final pass that adds each item\'s body')
    .option('--poll-interval <ms>', 'how often the job is polled', '1000')
    .option('--progress-interval <ms>', 'least time between plain progress lines when stderr is not a terminal', '5000')
    .option('--cancel-on-interrupt', 'the first Ctrl-C or SIGTERM cancels the job without asking');
}

function runCommand(): Command {
  const command = new Command('run')
    .description('submit a file of URLs (one per line) or JSONL items, follow it with progress, stream results to NDJSON')
    .argument('<file>', 'the input file, or - for stdin')
    .option('--name <name>', 'job label')
    .option('--concurrency <n>', 'items run at once (1-50)')
    .option('--priority <n>', 'job priority (0-1000)')
    .option('--max-attempts <n>', 'attempts per item (1-10)')
    .option('--failure-threshold <n>', 'abort the job after this many failed items')
    .option('--credit-budget <credits>', 'ceiling for the whole run, whole credits')
    .option('--webhook-endpoint-id <id>', 'notify this webhook endpoint when the job ends')
    .option('--chunk-size <n>', `items per call (at most ${MAX_ITEMS_PER_CALL}); larger inputs are appended to an open job`, String(MAX_ITEMS_PER_CALL))
    .option('--detach', 'submit, print the job and exit without following it');
  followOptions(command, 'trawler-batch-<id>.ndjson');
  withConnectionOptions(command);
  addScrapeParameterOptions(command);
  return command.action(async (file: string, flags: RunFlags) => {
    const input = readBatchInput(file);
    const defaults = scrapeParametersFrom(flags as unknown as Record<string, unknown>, null);
    const jobFields = { ...defaults, ...runControls(flags) };
    const context = contextFrom(flags);
    const chunkSize = Math.max(1, wholeNumber('--chunk-size', flags.chunkSize ?? '10000', MAX_ITEMS_PER_CALL));
    const submitted = await submitUntilInterrupted(() =>
      ensureWritable(flags.detach ? undefined : flags.output),
      (stopRequested) => submitBatch(context.client, input, jobFields, { maxItems: chunkSize, stopRequested }),
    );
    const job = submitted.job;
    if (!context.json) {
      context.err.write(`trawler: batch job ${job.id}: ${job.total_items} items submitted in ${submitted.calls} call(s)\n`);
      for (const warning of submitted.warnings) context.err.write(`trawler: warning: ${warning}\n`);
    }
    if (flags.detach) return printJson(context, job);
    await follow(context, job.id, flags, `trawler-batch-${job.id}.ndjson`, input.where);
  });
}

function resultsCommand(): Command {
  const command = new Command('results')
    .description('write a job\'s result lines (NDJSON) to stdout or -o; --follow watches a running job like run does')
    .argument('<id>', 'batch job id')
    .option('--status <status>', 'only succeeded, failed, cancelled or skipped lines (not with --follow)')
    .option('--follow', 'watch the job with progress until it ends, streaming lines as items finish');
  followOptions(command, 'stdout');
  withConnectionOptions(command);
  return command.action(async (id: string, flags: FollowFlags & { status?: string; follow?: boolean }) => {
    if (flags.follow && flags.status !== undefined) throw new CliUsageError('--status cannot be used with --follow (a followed job streams every line)');
    ensureWritable(flags.output);
    const context = contextFrom(flags);
    if (flags.follow) return follow(context, encodeURIComponent(id), flags, '-');
    await writeCompleteResults(context.client, encodeURIComponent(id), flags.output ?? '-', flags.status);
  });
}

function runControls(flags: RunFlags): Record<string, unknown> {
  const integer = (flag: string, value: string | undefined, max: number) => (value === undefined ? undefined : wholeNumber(flag, value, max));
  const controls: Record<string, unknown> = {
    name: flags.name,
    concurrency: integer('--concurrency', flags.concurrency, 1000),
    priority: integer('--priority', flags.priority, 1000),
    max_attempts: integer('--max-attempts', flags.maxAttempts, 10),
    failure_threshold: integer('--failure-threshold', flags.failureThreshold, Number.MAX_SAFE_INTEGER),
    credit_budget: integer('--credit-budget', flags.creditBudget, Number.MAX_SAFE_INTEGER),
    webhook_endpoint_id: flags.webhookEndpointId,
  };
  return Object.fromEntries(Object.entries(controls).filter(([, value]) => value !== undefined));
}

/** Follows a job to its end: progress on stderr, lines to the results file, Ctrl-C handling. */
export async function follow(context: CommandContext, jobId: string, flags: FollowFlags, defaultOutput: string, where?: string[], statusRoute?: '/v1/crawl'): Promise<void> {
  const path = flags.output ?? defaultOutput;
  const sink = new ResultsSink(path);
  const progress = progressView(context, flags);
  if (!context.json && !sink.toStdout) progress.note(`trawler: results -> ${path}`);
  const interrupts = new InterruptControl({
    jobId,
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY && !context.json),
    cancelOnInterrupt: flags.cancelOnInterrupt === true,
    progress,
  });
  interrupts.install();
  let outcome: WatchOutcome;
  try {
    outcome = await watchJob({ client: context.client, jobId, sink, progress, interrupts, statusRoute, pollMs: wholeNumber('--poll-interval', flags.pollInterval ?? '1000', 3_600_000) });
  } finally {
    progress.stop();
    interrupts.uninstall();
    await sink.close();
  }
  if (outcome.ended === 'terminal' && flags.content !== false && !sink.toStdout) {
    await writeCompleteResults(context.client, jobId, path);
  }
  finish(context, outcome, sink, where);
}

function progressView(context: CommandContext, flags: FollowFlags): ProgressView {
  if (context.json) return silentProgress;
  if (process.stderr.isTTY) return terminalProgress(process.stderr);
  return lineProgress(context.err, wholeNumber('--progress-interval', flags.progressInterval ?? '5000', 3_600_000));
}

function finish(context: CommandContext, outcome: WatchOutcome, sink: ResultsSink, where?: string[]): never | void {
  const { job } = outcome;
  if (context.json && !sink.toStdout) printJson(context, job);
  if (!context.json) {
    context.err.write(`${describeJob(job)}\n`);
    if (sink.failures.length > 0) context.err.write(`${describeFailures(job.id, sink, where)}\n`);
    if (!sink.toStdout) context.err.write(`results: ${sink.path}\n`);
    if (outcome.ended === 'detached') {
      context.err.write(`trawler: stopped watching; the job ${outcome.cancelRequested ? 'is cancelling' : 'keeps running'}. Follow it again with: trawler batch results ${job.id} --follow -o FILE\n`);
    }
  }
  const interrupted = outcome.ended === 'detached' || outcome.cancelRequested;
  const code = interrupted ? EXIT.interrupted : exitCodeOfJob(job);
  if (code !== EXIT.ok) throw new ExitWith(code);
}

/**
 * Submits with Ctrl-C and SIGTERM caught: the chunk being sent finishes, the job is closed with what
 * it holds and its id is printed (InterruptedSubmission), instead of leaving an open job nobody knows of.
 */
async function submitUntilInterrupted(check: () => void, submit: (stopRequested: () => boolean) => Promise<SubmitOutcome>): Promise<SubmitOutcome> {
  check();
  let stop = false;
  const onSignal = () => {
    if (!stop) process.stderr.write('trawler: interrupted; the call in flight finishes, then the job is closed with what it holds\n');
    stop = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await submit(() => stop);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
