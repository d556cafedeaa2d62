import { describe, expect, it } from 'vitest';
import { desiredDeployment, templateHash } from '../../../operator/desired-deployment.js';
import { ScrapeEngineSpecSchema, WorkerPoolSpecSchema, type ScrapeEngineResource, type WorkerPoolResource } from '../../../operator/spec-schemas.js';

const defaults = { image: 'trawler:0.1.0', natsUrl: 'nats://nats:4222', natsNamespace: 'prod' };
const meta = (name: string) => ({ name, namespace: 'ns', uid: `uid-${name}`, generation: 1 });
const engine = (spec: Record<string, unknown>, name = 'e'): ScrapeEngineResource => ({ metadata: meta(name), spec: ScrapeEngineSpecSchema.parse(spec) });
const pool = (spec: Record<string, unknown>, name = 'p'): WorkerPoolResource => ({ metadata: meta(name), spec: WorkerPoolSpecSchema.parse(spec) });
const envOf = (d: ReturnType<typeof desiredDeployment>) =>
  Object.fromEntries((d.spec!.template.spec!.containers[0]!.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

describe('desiredDeployment', () => {
  it('gives a fetch pool its command, env, port, probes, labels, owner and default resources', () => {
    const d = desiredDeployment(pool({ engineRef: { name: 'e' }, replicas: 3, poolName: 'eu-west' }), engine({ engine: 'fetch', capacity: 32 }), defaults);
    expect(d.metadata!.name).toBe('trawler-p-fetch');
    expect(d.metadata!.ownerReferences![0]).toMatchObject({ kind: 'WorkerPool', name: 'p', uid: 'uid-p', controller: true });
    expect(d.spec!.selector.matchLabels).toEqual({ 'trawler.dev/pool': 'p', 'trawler.dev/engine': 'fetch' });
    expect(d.spec!.template.metadata!.labels).toMatchObject(d.spec!.selector.matchLabels!);
    expect(d.spec!.template.metadata!.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9464', 'prometheus.io/path': '/metrics' });
    const pod = d.spec!.template.spec!;
    expect(pod.terminationGracePeriodSeconds).toBe(45);
    expect(pod.shareProcessNamespace).toBeUndefined();
    expect(pod.automountServiceAccountToken).toBe(false);
    const c = pod.containers[0]!;
    expect(c.command).toEqual(['node', 'dist/bin/trawler.js', 'worker', '--engine', 'fetch']);
    expect(c.workingDir).toBe('/app');
    expect(envOf(d)).toEqual({
      NATS_URL: 'nats://nats:4222',
      NATS_NAMESPACE: 'prod',
      WORKER_POOL: 'eu-west',
      WORKER_CAPACITY: '32',
      HOST: '0.0.0.0',
      METRICS_PORT: '9464',
      HEARTBEAT_INTERVAL_MS: '2000',
      SHUTDOWN_GRACE_MS: '30000',
      LOG_LEVEL: 'info',
    });
    expect(c.readinessProbe!.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.resources).toEqual({ requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } });
    expect(pod.volumes!.map((v) => v.name)).toEqual(['tmp']);
  });

  it('gives browser pools a reaper, /dev/shm in memory and the browser path', () => {
    const d = desiredDeployment(pool({ engineRef: { name: 'e' } }), engine({ engine: 'chromium', browser: { shmSize: '512Mi' } }), defaults);
    const pod = d.spec!.template.spec!;
    expect(pod.shareProcessNamespace).toBe(true);
    expect(pod.volumes).toContainEqual({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '512Mi' } });
    expect(pod.containers[0]!.volumeMounts).toContainEqual({ name: 'dshm', mountPath: '/dev/shm' });
    expect(envOf(d).CHROMIUM_PATH).toBe('/usr/bin/chromium');
    expect(pod.containers[0]!.resources!.limits).toEqual({ memory: '2Gi' });
    const obscura = desiredDeployment(pool({ engineRef: { name: 'e' } }), engine({ engine: 'obscura', browser: { cdpUrl: 'ws://obscura:9222' } }), defaults);
    expect(envOf(obscura)).toMatchObject({ OBSCURA_PATH: '/usr/bin/chromium-headless-shell', OBSCURA_CDP_URL: 'ws://obscura:9222' });
  });

  it('takes NATS_URL from a Secret, lets the engine env override derived values, and the pool capacity win', () => {
    const d = desiredDeployment(
      pool({ engineRef: { name: 'e' }, capacity: 4, nodeSelector: { pool: 'scrapers' }, tolerations: [{ key: 'k', operator: 'Exists' }] }),
      engine({
        engine: 'fetch',
        capacity: 16,
        nats: { urlSecretRef: { name: 'nats', key: 'url' } },
        env: [{ name: 'LOG_LEVEL', value: 'debug' }, { name: 'EXTRA', value: '1' }],
        resources: { requests: { cpu: 1 }, limits: { memory: '1Gi' } },
        metricsPort: 9100,
        shutdownGraceMs: 60_000,
      }),
      defaults,
    );
    const env = envOf(d);
    expect(env.NATS_URL).toEqual({ secretKeyRef: { name: 'nats', key: 'url' } });
    expect(env.WORKER_CAPACITY).toBe('4');
    expect(env.LOG_LEVEL).toBe('debug');
    expect(env.EXTRA).toBe('1');
    const names = d.spec!.template.spec!.containers[0]!.env!.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    const pod = d.spec!.template.spec!;
    expect(pod.nodeSelector).toEqual({ pool: 'scrapers' });
    expect(pod.tolerations).toEqual([{ key: 'k', operator: 'Exists' }]);
    expect(pod.terminationGracePeriodSeconds).toBe(75);
    expect(pod.containers[0]!.resources).toEqual({ requests: { cpu: '1' }, limits: { memory: '1Gi' } });
    expect(pod.containers[0]!.ports![0]!.containerPort).toBe(9100);
    expect(d.spec!.template.metadata!.annotations!['prometheus.io/port']).toBe('9100');
  });

  it('gives the worker pod the engine image, pull policy and pull secrets, and none when the engine names none', () => {
    const spec = { engine: 'fetch', image: 'registry.test/trawler:9', imagePullPolicy: 'Always', imagePullSecrets: [{ name: 'regcred' }] };
    const pod = desiredDeployment(pool({ engineRef: { name: 'e' } }), engine(spec), defaults).spec!.template.spec!;
    expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(pod.containers[0]).toMatchObject({ image: 'registry.test/trawler:9', imagePullPolicy: 'Always' });
    const plain = desiredDeployment(pool({ engineRef: { name: 'e' } }), engine({ engine: 'fetch' }), defaults).spec!.template.spec!;
    expect(plain.imagePullSecrets).toBeUndefined();
    expect(plain.containers[0]!.image).toBe('trawler:0.1.0');
    expect(plain.containers[0]!.imagePullPolicy).toBeUndefined();
  });

  it('is deterministic, and its hash changes with the image but not with nothing', () => {
    const p = pool({ engineRef: { name: 'e' } });
    const a = desiredDeployment(p, engine({ engine: 'fetch' }), defaults);
    const b = desiredDeployment(p, engine({ engine: 'fetch' }), defaults);
    const c = desiredDeployment(p, engine({ engine: 'fetch', image: 'trawler:0.2.0' }), defaults);
    expect(b).toEqual(a);
    expect(a.metadata!.annotations!['trawler.dev/template-hash']).toBe(templateHash(a));
    expect(c.metadata!.annotations!['trawler.dev/template-hash']).not.toBe(a.metadata!.annotations!['trawler.dev/template-hash']);
  });
});
