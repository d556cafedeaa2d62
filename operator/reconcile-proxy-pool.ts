import { createHash } from 'node:crypto';
import type { V1Secret } from '@kubernetes/client-node';
import { candidatesOf } from '../lib/proxy-pool/selection.js';
import { parsePoolFile, PoolFileError } from '../lib/proxy-pool/pool-file.js';
import { nextConditions, stableStringify, type ConditionInput } from './conditions.js';
import { POOL_FILE_KEY, ProxyPoolSpecSchema, proxyPoolSecretName, type ProxyPoolExit, type ProxyPoolStatus } from './proxy-pool-resource.js';
import type { ReconcileContext } from './reconcile-context.js';
import { CONDITION, REASON } from './condition-types.js';
import { GROUP_VERSION, PROXY_POOL_KIND } from './api-names.js';
import { LABEL, MANAGED_BY, TEMPLATE_HASH_ANNOTATION } from './labels.js';
import { parseSpec } from './spec-schemas.js';
import type { StoredObject } from './stored-object.js';
import { statusUpToDate } from './status-write.js';

class MissingSecret extends Error {}

/**
 * A ProxyPool: resolves its exits' credentials from Secrets, checks the result as the gateway will
 * (the same pool file parser), writes it into the Secret the gateways mount as PROXY_POOLS_FILE (owned
 * by the ProxyPool, rewritten only when it changed), and reports exit counts and shared health.
 * A credential is never written to status, events or the log.
 */
export async function reconcileProxyPool(ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const stored = await ctx.cluster.getProxyPool(namespace, name);
  if (!stored || stored.metadata.deletionTimestamp) return;
  const secretName = proxyPoolSecretName(name);
  const counts = { exits: 0, datacenterExits: 0, residentialExits: 0, countries: [] as string[] };
  let inputs: ConditionInput[];
  let health: ProxyPoolStatus['health'];
  try {
    const exits = await resolveExits(ctx, namespace, stored);
    const file = JSON.stringify({ exits });
    const candidates = candidatesOf(parsePoolFile(file, `ProxyPool ${name}`));
    counts.exits = candidates.length;
    counts.datacenterExits = candidates.filter((c) => c.exit.tier === 'datacenter').length;
    counts.residentialExits = counts.exits - counts.datacenterExits;
    counts.countries = [...new Set(candidates.map((c) => c.country).filter((c): c is string => c !== null))].sort();
    await writePoolSecret(ctx, stored, secretName, file);
    health = ctx.exitHealth ? await ctx.exitHealth(candidates) : undefined;
    const healthy = health === undefined || health.healthy > 0;
    inputs = [
      { type: CONDITION.available, status: healthy, reason: healthy ? REASON.poolFileWritten : REASON.noHealthyExit, message: `${counts.exits} exit(s) in secret ${secretName}` },
      { type: CONDITION.degraded, status: !healthy, reason: healthy ? REASON.asExpected : REASON.noHealthyExit, message: healthy ? '' : 'every exit is cooling down or refused its credentials' },
    ];
  } catch (error) {
    if (!(error instanceof MissingSecret || error instanceof PoolFileError || error instanceof SpecError)) throw error;
    const reason = error instanceof MissingSecret ? REASON.secretMissing : REASON.invalidSpec;
    inputs = [
      { type: CONDITION.available, status: false, reason, message: error.message },
      { type: CONDITION.degraded, status: true, reason, message: error.message },
    ];
  }
  const status: ProxyPoolStatus = {
    observedGeneration: stored.metadata.generation,
    secretName,
    ...counts,
    ...(health ? { health } : {}),
    conditions: nextConditions(stored.conditions, inputs, stored.metadata.generation, ctx.now()),
  };
  if (statusUpToDate(stored.status, status)) return;
  await ctx.cluster.patchProxyPoolStatus(namespace, name, status);
  ctx.logger.info({ exits: counts.exits, available: inputs[0].status }, 'proxypool status updated');
}

class SpecError extends Error {}

async function resolveExits(ctx: ReconcileContext, namespace: string, stored: StoredObject): Promise<Record<string, unknown>[]> {
  const parsed = parseSpec(ProxyPoolSpecSchema, stored.spec);
  if (!parsed.ok) throw new SpecError(parsed.message);
  const secrets = new Map<string, V1Secret | undefined>();
  const read = async (ref: { name: string; key: string }): Promise<string> => {
    if (!secrets.has(ref.name)) secrets.set(ref.name, await ctx.cluster.getSecret(namespace, ref.name));
    const value = secrets.get(ref.name)?.data?.[ref.key];
    if (value === undefined) throw new MissingSecret(`secret ${ref.name} has no key ${ref.key}`);
    return Buffer.from(value, 'base64').toString('utf8');
  };
  return Promise.all(parsed.spec.exits.map(async (exit: ProxyPoolExit) => {
    const { usernameSecretRef, passwordSecretRef, url, ...rest } = exit;
    const withCredentials = new URL(url);
    if (usernameSecretRef) withCredentials.username = encodeURIComponent(await read(usernameSecretRef));
    const password = passwordSecretRef ? await read(passwordSecretRef) : undefined;
    return { ...rest, url: withCredentials.toString().replace(/\/$/, ''), ...(password !== undefined ? { password } : {}) };
  }));
}

async function writePoolSecret(ctx: ReconcileContext, owner: StoredObject, secretName: string, file: string): Promise<void> {
  const { namespace, name, uid } = owner.metadata;
  const hash = createHash('sha256').update(stableStringify(file)).digest('hex').slice(0, 16);
  const current = await ctx.cluster.getSecret(namespace, secretName);
  if (current?.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] === hash) return;
  const secret: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: secretName,
      namespace,
      labels: { [LABEL.managedBy]: MANAGED_BY, [LABEL.partOf]: 'trawler', [LABEL.component]: 'proxy-pool' },
      annotations: { [TEMPLATE_HASH_ANNOTATION]: hash },
      ownerReferences: [{ apiVersion: GROUP_VERSION, kind: PROXY_POOL_KIND, name, uid, controller: true, blockOwnerDeletion: true }],
      ...(current?.metadata?.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}),
    },
    data: { [POOL_FILE_KEY]: Buffer.from(file).toString('base64') },
  };
  if (current) await ctx.cluster.replaceSecret(secret);
  else await ctx.cluster.createSecret(secret);
}
