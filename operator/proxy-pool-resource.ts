import { z } from 'zod';
import type { Condition } from './condition-types.js';

/** A Secret key holding one credential. */
const SecretValueRef = z.object({ name: z.string().min(1), key: z.string().min(1) }).strict();

/**
 * One exit of a ProxyPool: the pool file's exit (docs/proxy-pools.md) without credentials in it;
 * username and password come from Secrets of the ProxyPool's namespace.
 */
const ProxyPoolExitSchema = z
  .object({
    id: z.string().optional(),
    url: z.string().min(1),
    tier: z.enum(['datacenter', 'residential']),
    country: z.string().optional(),
    countries: z.array(z.string()).optional(),
    region: z.string().optional(),
    city: z.string().optional(),
    provider: z.string().optional(),
    username_template: z.string().optional(),
    weight: z.number().positive().optional(),
    usernameSecretRef: SecretValueRef.optional(),
    passwordSecretRef: SecretValueRef.optional(),
  })
  .strict();
export type ProxyPoolExit = z.infer<typeof ProxyPoolExitSchema>;

/** Spec of a ProxyPool. The CRD's openAPIV3Schema mirrors it. */
export const ProxyPoolSpecSchema = z.object({ exits: z.array(ProxyPoolExitSchema).min(1) }).strict();
export type ProxyPoolSpec = z.infer<typeof ProxyPoolSpecSchema>;

export interface ProxyPoolStatus {
  observedGeneration: number;
  /** The Secret the gateways mount as PROXY_POOLS_FILE (key `pools.json`). */
  secretName: string;
  /** Selectable exits (a provider gateway counts once per country), by tier. */
  exits: number;
  datacenterExits: number;
  residentialExits: number;
  countries: string[];
  /** Shared health as the gateways record it, when the operator can read the store (DATABASE_URL). */
  health?: { healthy: number; cooling: number; authFailed: number };
  conditions: Condition[];
}

/** Name of the Secret holding a ProxyPool's pool file. */
export const proxyPoolSecretName = (pool: string): string => `trawler-proxypool-${pool}`;
export const POOL_FILE_KEY = 'pools.json';

/** Names of the Secrets a ProxyPool object's exits take credentials from (its spec as stored, not yet validated). */
export function secretNamesOf(pool: object): Set<string> {
  const exits = ((pool as { spec?: { exits?: unknown } }).spec)?.exits;
  const names = new Set<string>();
  if (!Array.isArray(exits)) return names;
  for (const exit of exits as Array<Record<string, { name?: unknown } | undefined>>) {
    for (const ref of [exit?.usernameSecretRef, exit?.passwordSecretRef]) if (typeof ref?.name === 'string') names.add(ref.name);
  }
  return names;
}
