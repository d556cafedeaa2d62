import { Command, CommanderError } from 'commander';
import { batchCommand } from './batch/command.js';
import { crawlCommand, crawlStatusCommand, mapCommand } from './crawl-commands.js';
import { InterruptedSubmission, PartialSubmission } from './batch/submit.js';
import { CliUsageError, EXIT, ExitWith, type ExitCode } from './exit-codes.js';
import { ApiError, formatProblem } from './problem.js';
import { requestsCommand, usageCommand, workersCommand } from './read-commands.js';
import { scrapeCommand } from './scrape/command.js';
import { mcpCommand } from './mcp-command.js';

function program(): Command {
  const root = new Command('trawler')
    .description('the Trawler API from a terminal (TRAWLER_API_URL, TRAWLER_API_KEY)')
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) });
  for (const command of [scrapeCommand(), batchCommand(), requestsCommand(), workersCommand(), usageCommand(), mcpCommand(), crawlCommand(), crawlStatusCommand(), mapCommand()]) root.addCommand(command);
  for (const command of root.commands) inherit(command);
  return root;
}

/** commander applies exitOverride/output settings per command; subcommands created apart need them too. */
function inherit(command: Command): void {
  command.exitOverride().showHelpAfterError('(add --help for usage)');
  for (const sub of command.commands) inherit(sub);
}

/** Runs one client command; returns the exit code (README "Client CLI", cli/exit-codes.ts). */
export async function runClient(argv: string[]): Promise<ExitCode> {
  // `trawler ... | head`: the reader has what it wanted; stop quietly rather than with a stack trace.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT.ok);
      throw error;
    });
  }
  try {
    await program().parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return reportFailure(error, argv.includes('--json'));
  }
}

function reportFailure(error: unknown, json: boolean): ExitCode {
  if (error instanceof ExitWith) return error.code;
  if (error instanceof CommanderError) {
    // help and version end with code 0; anything else commander refused is a usage error
    return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (error instanceof CliUsageError) {
    process.stderr.write(`trawler: ${error.message}\n`);
    return EXIT.usage;
  }
  if (error instanceof InterruptedSubmission) {
    process.stderr.write(`trawler: ${error.message}\n`);
    return EXIT.interrupted;
  }
  const apiError = error instanceof PartialSubmission ? error.apiError : error instanceof ApiError ? error : null;
  if (error instanceof PartialSubmission) process.stderr.write(`trawler: ${error.message}\n`);
  if (apiError) {
    const problem = apiError.problem;
    if (json) process.stderr.write(`${JSON.stringify(problem)}\n`);
    else process.stderr.write(`${formatProblem(problem, apiError.attempts)}\n${hintFor(problem.code)}`);
    return apiError.exitCode;
  }
  process.stderr.write(`trawler: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.failed;
}

function hintFor(code: string | undefined): string {
  if (code === 'ERR::AUTH::MISSING_KEY' || code === 'ERR::AUTH::INVALID_KEY') return 'set TRAWLER_API_KEY or pass --api-key\n';
  return '';
}
