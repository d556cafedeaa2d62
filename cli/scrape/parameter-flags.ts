import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { ServiceError } from '../../lib/errors/index.js';
import { scrapeFieldTable } from '../../lib/scrape/field-table.js';
import { QUERY_ENCODING, ScrapeInputSchema, type QueryEncoding, type ScrapeFieldName } from '../../lib/scrape/fields.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import { decodeScrapeQuery } from '../../lib/scrape/get-query.js';
import { CliUsageError } from '../exit-codes.js';

/**
 * One flag per scrape parameter, generated from lib/scrape's wire schema and its GET encoding table,
 * so a parameter added there is a flag here without an edit: booleans are `--x` / `--no-x`, lists
 * comma-separated (or a JSON array), objects and arrays JSON text or `@file.json`.
 */
const FLAG_FIELDS = (Object.keys(QUERY_ENCODING) as ScrapeFieldName[]).filter((field) => field !== 'url');

const VALUE_HINT: Record<QueryEncoding, string> = {
  string: '<value>',
  integer: '<n>',
  boolean: '',
  list: '<a,b,...>',
  'integer-list': '<n,n,...>',
  json: '<json|@file>',
};

export function flagName(field: string): string {
  return `--${field.replaceAll('_', '-')}`;
}

/** commander's attribute name for `--js-render` is `jsRender`. */
function attributeName(field: string): string {
  return field.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** The help line of a flag: the field, its allowed values or bounds, and its one-line help (lib/scrape/field-table.ts). */
function flagHelp(field: ScrapeFieldName): string {
  const described = scrapeFieldTable().find((entry) => entry.name === field);
  const values = described?.values ? `one${described.encoding === 'list' ? ' or more' : ''} of ${described.values.join(', ')}` : null;
  const bounds = described?.minimum !== undefined && described.maximum !== undefined ? `${described.minimum} to ${described.maximum}` : null;
  return [described?.help?.replace(/\.$/, ''), values, bounds].filter(Boolean).join('; ');
}

export function addScrapeParameterOptions(command: Command): Command {
  for (const field of FLAG_FIELDS) {
    const encoding = QUERY_ENCODING[field];
    const help = flagHelp(field);
    if (encoding === 'boolean') {
      command.addOption(new Option(flagName(field), `${field}=true${help ? ` (${help})` : ''}`).helpGroup('Scrape parameters (docs/parameters.md):'));
      command.addOption(new Option(`--no-${field.replaceAll('_', '-')}`, `${field}=false`).helpGroup('Scrape parameters (docs/parameters.md):'));
    } else {
      command.addOption(new Option(`${flagName(field)} ${VALUE_HINT[encoding]}`, `${field} (${encoding})${help ? `: ${help}` : ''}`).helpGroup('Scrape parameters (docs/parameters.md):'));
    }
  }
  return command.option('--params <file.json>', 'scrape parameters as a JSON object; flags given as well win');
}

/**
 * The scrape parameters a command line asks for: `--params` file first, flags over it. Checked with
 * the service's own schema so a typo or a bad value fails here, before anything is sent or spent.
 */
export function scrapeParametersFrom(options: Record<string, unknown>, url: string | null): Record<string, unknown> {
  const fromFile = options.params === undefined ? {} : readParamsFile(String(options.params));
  const raw: Record<string, string> = {};
  for (const field of FLAG_FIELDS) {
    const value = options[attributeName(field)];
    if (value === undefined) continue;
    raw[field] = QUERY_ENCODING[field] === 'json' ? jsonFlagText(field, String(value)) : String(value);
  }
  let fromFlags: Record<string, unknown>;
  try {
    fromFlags = decodeScrapeQuery(raw);
  } catch (error) {
    throw asUsageError(error);
  }
  const params: Record<string, unknown> = { ...fromFile, ...fromFlags };
  if (url !== null) params.url = url;
  const checked = ScrapeInputSchema.safeParse(params);
  if (!checked.success) throw asUsageError(invalidParameter(checked.error));
  return params;
}

function readParamsFile(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliUsageError(`--params ${path}: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliUsageError(`--params ${path}: must hold a JSON object`);
  return parsed as Record<string, unknown>;
}

function jsonFlagText(field: string, value: string): string {
  if (!value.startsWith('@')) return value;
  try {
    return readFileSync(value.slice(1), 'utf8');
  } catch (error) {
    throw new CliUsageError(`${flagName(field)} ${value}: ${(error as Error).message}`);
  }
}

/** `wait: must be an integer` -> `--wait: must be an integer`, so the message names the flag typed. */
function asUsageError(error: unknown): Error {
  if (!(error instanceof ServiceError)) return error as Error;
  const detail = (error.detail ?? error.message).replace(/(^|; )([a-z_]+)(?=[:.[])/g, (_m, sep: string, field: string) =>
    (FLAG_FIELDS as string[]).includes(field) || field === 'url' ? `${sep}${field === 'url' ? 'url' : flagName(field)}` : `${sep}${field}`,
  );
  return new CliUsageError(`invalid scrape parameters: ${detail}`);
}
