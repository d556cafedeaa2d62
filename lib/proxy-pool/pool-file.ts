import { createHash } from 'node:crypto';
import { parse as parseYaml, YAMLError } from 'yaml';
import { z } from 'zod';

/** The managed pool's exit tiers; the price table has one column per tier (docs/proxy-pools.md). */
export const EXIT_TIERS = ['datacenter', 'residential'] as const;
export type ExitTier = (typeof EXIT_TIERS)[number];

const PROXY_SCHEMES = ['http', 'https', 'socks5', 'socks5h'] as const;
const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, socks5: 1080, socks5h: 1080 };
const Country = z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code').transform((c) => c.toUpperCase());
const Label = z.string().trim().min(1).max(64);
/** The placeholders a provider's username template may use (docs/proxy-pools.md, "Provider gateways"). */
const TEMPLATE_PLACEHOLDERS = new Set(['user', 'country', 'COUNTRY', 'session']);

const ExitEntrySchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lower-case letters, digits and hyphens, at most 63').optional(),
    url: z.string().min(1),
    tier: z.enum(EXIT_TIERS),
    country: Country.optional(),
    countries: z.array(Country).min(1).optional(),
    region: Label.optional(),
    city: Label.optional(),
    provider: Label.optional(),
    username_template: z.string().min(1).max(256).optional(),
    password: z.string().optional(),
    weight: z.number().positive().max(1000).default(1),
  })
  .strict();
export type ExitEntry = z.infer<typeof ExitEntrySchema>;

export const PoolFileSchema = z.object({ exits: z.array(ExitEntrySchema).min(1) }).strict();

/** One configured exit: a static endpoint, or a provider gateway serving several countries. */
export interface PoolExit {
  id: string;
  kind: 'static' | 'gateway';
  tier: ExitTier;
  countries: string[];
  region: string | null;
  city: string | null;
  provider: string | null;
  scheme: (typeof PROXY_SCHEMES)[number];
  /** `scheme://host:port`, never credentials. */
  endpoint: string;
  weight: number;
  /** A digest of the credentials: an exit refused with 407 comes back once they change. */
  credentialHash: string;
  /** The proxy URL to dial, credentials included, for this country and session token. */
  urlFor(country: string, session: string): string;
}

export class PoolFileError extends Error {
  override name = 'PoolFileError';
}

function issueText(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`).join('; ');
}

function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => values[name] ?? '');
}

function exitOf(entry: ExitEntry, index: number): PoolExit {
  const where = `exits[${index}]`;
  let url: URL;
  try {
    url = new URL(entry.url);
  } catch {
    throw new PoolFileError(`${where}.url is not a valid URL`);
  }
  const scheme = url.protocol.replace(':', '') as PoolExit['scheme'];
  if (!(PROXY_SCHEMES as readonly string[]).includes(scheme)) {
    throw new PoolFileError(`${where}.url: scheme ${scheme} is not one of ${PROXY_SCHEMES.join(', ')}`);
  }
  const template = entry.username_template ?? null;
  if (template !== null) {
    for (const [, name] of template.matchAll(/\{(\w*)\}/g)) {
      if (!TEMPLATE_PLACEHOLDERS.has(name)) throw new PoolFileError(`${where}.username_template: unknown placeholder {${name}}`);
    }
    if (!entry.countries && !entry.country) throw new PoolFileError(`${where}: a provider gateway lists the countries it serves`);
  } else if (entry.countries) {
    throw new PoolFileError(`${where}: countries is for a provider gateway (with username_template); a static exit has one country`);
  }
  const countries = [...new Set(entry.countries ?? (entry.country ? [entry.country] : []))];
  const port = Number(url.port) || DEFAULT_PORTS[scheme];
  const host = url.hostname;
  const user = decodeURIComponent(url.username);
  const password = entry.password ?? decodeURIComponent(url.password);
  const bare = `${scheme}://${host}:${port}`;
  const credentialHash = createHash('sha256').update(`${user}\0${template ?? ''}\0${password}`).digest('hex').slice(0, 16);
  const withUser = (username: string): string => {
    if (username === '' && password === '') return bare;
    return `${scheme}://${encodeURIComponent(username)}:${encodeURIComponent(password)}@${host.includes(':') ? `[${host}]` : host}:${port}`;
  };
  return {
    id: entry.id ?? `${host.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${port}`,
    kind: template === null ? 'static' : 'gateway',
    tier: entry.tier,
    countries,
    region: entry.region ?? null,
    city: entry.city ?? null,
    provider: entry.provider ?? null,
    scheme,
    endpoint: bare,
    weight: entry.weight,
    credentialHash,
    urlFor: (country, session) =>
      template === null ? withUser(user) : withUser(fillTemplate(template, { user, country: country.toLowerCase(), COUNTRY: country, session })),
  };
}

/**
 * Where and why the parser gave up, without the parser's own message: that quotes the offending line,
 * which may be an exit's URL with its credentials (the text goes to logs and the operator's status).
 */
function parseErrorText(error: unknown): string {
  if (error instanceof YAMLError) {
    const at = error.linePos?.[0];
    return `${error.code}${at ? ` at line ${at.line}, column ${at.col}` : ''}`;
  }
  return 'unreadable';
}

/** Parses a pool file's text (JSON, or YAML, which JSON also is). Throws PoolFileError naming what is wrong. */
export function parsePoolFile(text: string, name = 'PROXY_POOLS_FILE'): PoolExit[] {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new PoolFileError(`${name} is neither JSON nor YAML: ${parseErrorText(error)}`);
  }
  const parsed = PoolFileSchema.safeParse(raw);
  if (!parsed.success) throw new PoolFileError(`${name}: ${issueText(parsed.error)}`);
  const exits = parsed.data.exits.map(exitOf);
  const seen = new Set<string>();
  for (const exit of exits) {
    if (seen.has(exit.id)) throw new PoolFileError(`${name}: two exits have the id ${exit.id}; give each an explicit id`);
    seen.add(exit.id);
  }
  return exits;
}
