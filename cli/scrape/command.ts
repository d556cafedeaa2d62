import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import type { ApiResponse } from '../client.js';
import { contextFrom, printJson, withConnectionOptions, type CommandContext, type ConnectionFlags } from '../context.js';
import { ensureWritable } from '../output-file.js';
import { creditsText } from '../table.js';
import { addScrapeParameterOptions, scrapeParametersFrom } from './parameter-flags.js';

interface ScrapeFlags extends ConnectionFlags {
  output?: string;
  saveScreenshots?: string;
}

interface Screenshot {
  name?: string;
  format?: string;
  data?: string;
}

const EXTENSIONS: Record<string, string> = { 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export function scrapeCommand(): Command {
  const command = new Command('scrape')
    .description('scrape one URL (POST /v1/scrape); the body goes to stdout or -o, a JSON envelope pretty-printed')
    .argument('<url>', 'target URL')
    .option('-o, --output <file>', 'write the body (or envelope) to this file instead of stdout (- for stdout)')
    .option('--save-screenshots <dir>', 'decode the envelope\'s screenshots into <dir>/<name>.<format> (<name>-2... when taken)');
  withConnectionOptions(command);
  addScrapeParameterOptions(command);
  return command.action(async (url: string, flags: ScrapeFlags) => {
    const params = scrapeParametersFrom(flags as unknown as Record<string, unknown>, url);
    ensureWritable(flags.output);
    const context = contextFrom(flags);
    const response = await context.client.request('POST', '/v1/scrape', { json: params, onDrop: 'once' });
    await present(context, response, flags);
  });
}

async function present(context: CommandContext, response: ApiResponse, flags: ScrapeFlags): Promise<void> {
  const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
  const envelope = contentType === 'application/json' ? (JSON.parse(response.body.toString('utf8')) as Record<string, unknown>) : null;
  const summary = summaryOf(response, contentType);
  const screenshotFiles = envelope && flags.saveScreenshots ? saveScreenshots(envelope, flags.saveScreenshots) : [];
  let written: string | null = null;
  if (flags.output && flags.output !== '-') {
    writeFileSync(flags.output, envelope ? `${JSON.stringify(envelope, null, 2)}\n` : response.body);
    written = flags.output;
  } else if (flags.output !== '-' && !envelope && isBinary(contentType) && (context.json || process.stdout.isTTY)) {
    written = `${response.requestId ?? 'scrape'}.${EXTENSIONS[contentType] ?? 'bin'}`;
    writeFileSync(written, response.body);
  }
  if (context.json) {
    const body = written ? { output: written } : envelope ? { envelope } : { body: response.body.toString('utf8') };
    printJson(context, { ...summary, ...body, ...(screenshotFiles.length ? { screenshot_files: screenshotFiles } : {}) });
    return;
  }
  let bodyEndsLine = true;
  if (!written) {
    context.out.write(envelope ? `${JSON.stringify(envelope, null, 2)}\n` : response.body);
    bodyEndsLine = envelope !== null || response.body.length === 0 || response.body[response.body.length - 1] === 0x0a;
  }
  const warnings = summary.warnings.length ? `; warnings ${summary.warnings.join(', ')}` : '';
  const where = written ? `; saved ${written}` : '';
  const shots = screenshotFiles.length ? `; screenshots ${screenshotFiles.join(', ')}` : '';
  if (process.stderr.isTTY || written || warnings || shots) {
    // On a terminal the body and this line share the screen: a body without a final newline must not glue them.
    if (!bodyEndsLine && process.stdout.isTTY) context.err.write('\n');
    context.err.write(
      `trawler: target ${summary.target_status ?? '?'} via ${summary.engine ?? '?'}, ${creditsText(summary.credits_charged)}, cache ${summary.cache_state ?? '-'}, request ${summary.request_id ?? '-'}${warnings}${where}${shots}\n`,
    );
  }
}

function summaryOf(response: ApiResponse, contentType: string) {
  const header = (name: string) => response.headers.get(name);
  const targetStatus = header('x-target-status');
  return {
    request_id: response.requestId,
    http_status: response.status,
    target_status: targetStatus === null ? null : Number(targetStatus),
    engine: header('x-engine'),
    credits_charged: Number(header('x-credits-charged') ?? 0),
    cache_state: header('cache-state'),
    warnings: (header('x-warning') ?? '').split(',').map((w) => w.trim()).filter(Boolean),
    content_type: contentType,
    attempts: response.attempts,
  };
}

function isBinary(contentType: string): boolean {
  return !(contentType.startsWith('text/') || contentType.endsWith('json') || contentType.endsWith('xml'));
}

function saveScreenshots(envelope: Record<string, unknown>, dir: string): string[] {
  const shots = Array.isArray(envelope.screenshots) ? (envelope.screenshots as Screenshot[]) : [];
  if (shots.length === 0) return [];
  mkdirSync(dir, { recursive: true });
  return shots
    .filter((shot) => typeof shot.data === 'string')
    .map((shot, index) => {
      const name = (shot.name ?? `screenshot-${index}`).replace(/[^A-Za-z0-9._-]/g, '_');
      const path = freePath(dir, name, shot.format === 'jpeg' ? 'jpg' : (shot.format ?? 'png'));
      writeFileSync(path, Buffer.from(shot.data!, 'base64'), { flag: 'wx' });
      return path;
    });
}

/** `screenshot.png`, else `screenshot-2.png`, `screenshot-3.png`...: a second run never overwrites the first. */
function freePath(dir: string, name: string, extension: string): string {
  for (let n = 1; ; n += 1) {
    const path = join(dir, `${name}${n === 1 ? '' : `-${n}`}.${extension}`);
    if (!existsSync(path)) return path;
  }
}
