import { DEPLOYABLE_ENGINES } from '../lib/protocol/index.js';
import { relayOf } from './worker-env.js';
import { parseSpec, type ScrapeEngineResource, ScrapeEngineSpecSchema } from './spec-schemas.js';
import { type Reason, REASON } from './condition-types.js';
import type { StoredObject } from './stored-object.js';

export type EngineCheck =
  | { ok: true; engine: ScrapeEngineResource }
  | { ok: false; reason: Reason; message: string; engineName: string };

/**
 * Whether a ScrapeEngine can be turned into worker Deployments. `defaultNatsUrl` is the operator's
 * fallback NATS_URL; without it the engine must name a NATS server itself.
 */
export function checkEngine(stored: StoredObject, defaultNatsUrl: string | undefined): EngineCheck {
  const parsed = parseSpec(ScrapeEngineSpecSchema, stored.spec);
  const rawEngine = typeof stored.spec === 'object' && stored.spec !== null && 'engine' in stored.spec ? String(stored.spec.engine) : '';
  if (!parsed.ok) return { ok: false, reason: REASON.invalidSpec, message: parsed.message, engineName: rawEngine };
  const spec = parsed.spec;
  if (!DEPLOYABLE_ENGINES.includes(spec.engine)) {
    return {
      ok: false,
      reason: REASON.engineNotDeployable,
      message: `engine ${spec.engine} is not deployable in this build (deployable: ${DEPLOYABLE_ENGINES.join(', ')})`,
      engineName: spec.engine,
    };
  }
  if (spec.browser?.headful && spec.engine !== 'chromium') {
    return { ok: false, reason: REASON.invalidSpec, message: 'spec.browser.headful needs engine chromium', engineName: spec.engine };
  }
  if (spec.browser?.cdpUrl && spec.engine !== 'obscura') {
    return { ok: false, reason: REASON.invalidSpec, message: 'spec.browser.cdpUrl is for engine obscura', engineName: spec.engine };
  }
  const relay = relayOf(spec);
  if (relay && relay.containerPort === spec.metricsPort) {
    return { ok: false, reason: REASON.invalidSpec, message: `spec.remoteBrowser.port: the relay's port ${relay.containerPort} is spec.metricsPort`, engineName: spec.engine };
  }
  const namesNats =
    Boolean(spec.nats?.url) ||
    Boolean(spec.nats?.urlSecretRef) ||
    Boolean(spec.env?.some((e) => e.name === 'NATS_URL')) ||
    (spec.envFrom?.length ?? 0) > 0 ||
    Boolean(defaultNatsUrl);
  if (!namesNats) {
    return {
      ok: false,
      reason: REASON.missingNatsUrl,
      message: 'no NATS server: set spec.nats.url or spec.nats.urlSecretRef (the operator has no default NATS_URL)',
      engineName: spec.engine,
    };
  }
  return { ok: true, engine: { metadata: stored.metadata, spec } };
}
