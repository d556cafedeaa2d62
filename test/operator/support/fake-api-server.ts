import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { mergePatch, matchesSelector, ObjectStore, StoreError, type KObject, type StoredEvent } from './object-store.js';

/** The resource types the double serves, by URL prefix and plural. */
const TYPES: Record<string, { prefix: string; kind: string; apiVersion: string; scale?: boolean }> = {
  scrapeengines: { prefix: '/apis/trawler.dev/v1alpha1', kind: 'ScrapeEngine', apiVersion: 'trawler.dev/v1alpha1' },
  workerpools: { prefix: '/apis/trawler.dev/v1alpha1', kind: 'WorkerPool', apiVersion: 'trawler.dev/v1alpha1', scale: true },
  proxypools: { prefix: '/apis/trawler.dev/v1alpha1', kind: 'ProxyPool', apiVersion: 'trawler.dev/v1alpha1' },
  deployments: { prefix: '/apis/apps/v1', kind: 'Deployment', apiVersion: 'apps/v1' },
  secrets: { prefix: '/api/v1', kind: 'Secret', apiVersion: 'v1' },
};

export interface RecordedRequest {
  method: string;
  path: string;
  /** Whether this GET was a watch (`?watch=true`). */
  watch: boolean;
  contentType: string | undefined;
  status: number;
}

interface Route {
  plural: string;
  namespace: string | undefined;
  name: string | undefined;
  sub: 'status' | 'scale' | undefined;
}

interface Watcher {
  plural: string;
  namespace: string | undefined;
  selector: string | undefined;
  res: ServerResponse;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A Kubernetes API server double on 127.0.0.1 that speaks the REST and watch protocol the real
 * client library uses: LIST with resourceVersion, GET, POST (201), PUT with optimistic concurrency
 * (409 on a stale resourceVersion), merge PATCH (415 for other patch types), DELETE with garbage
 * collection of dependents, status and scale subresources, and `?watch=true` streams of
 * newline-delimited ADDED/MODIFIED/DELETED events replayed from a resourceVersion (410 once compacted).
 */
export class FakeApiServer {
  readonly store: ObjectStore;
  readonly requests: RecordedRequest[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly server: Server;
  private beforeWriteHooks: Array<{ matches: (method: string, path: string) => boolean; run: () => void }> = [];
  private port = 0;

  constructor(options: { garbageCollection?: boolean } = {}) {
    this.store = new ObjectStore(options.garbageCollection ?? true);
    this.store.onEvent((event) => this.broadcast(event));
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  kubeConfig(namespace: string): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'double', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'tester' }],
      contexts: [{ name: 'double', cluster: 'double', user: 'tester', namespace }],
      currentContext: 'double',
    });
    return kc;
  }

  /** Writes (POST, PUT, PATCH, DELETE) received over HTTP, i.e. from the operator. */
  writes(): RecordedRequest[] {
    return this.requests.filter((r) => WRITE_METHODS.has(r.method));
  }

  /** Runs `run` just before the next HTTP write that matches is handled (to emulate a concurrent writer). */
  beforeNextWrite(matches: (method: string, path: string) => boolean, run: () => void): void {
    this.beforeWriteHooks.push({ matches, run });
  }

  /** Ends every open watch stream, as an API server does on restart or timeout. */
  dropWatches(): void {
    for (const watcher of this.watchers) watcher.res.end();
    this.watchers.clear();
  }

  async close(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    const record = (status: number) =>
      this.requests.push({ method, path: url.pathname, watch: url.searchParams.get('watch') === 'true', contentType: req.headers['content-type']?.split(';')[0], status });
    try {
      const route = parseRoute(url.pathname);
      const body = await readBody(req);
      if (WRITE_METHODS.has(method)) this.runHooks(method, url.pathname);
      if (method === 'GET' && url.searchParams.get('watch') === 'true' && !route.name) {
        record(200);
        return this.watch(route, url.searchParams, res);
      }
      const [status, payload] = this.dispatch(method, route, url.searchParams, body, req.headers['content-type']);
      record(status);
      send(res, status, payload);
    } catch (error) {
      const e = error instanceof StoreError ? error : new StoreError(500, 'InternalError', String(error));
      record(e.code);
      send(res, e.code, statusBody(e));
    }
  }

  private runHooks(method: string, path: string): void {
    const index = this.beforeWriteHooks.findIndex((h) => h.matches(method, path));
    if (index < 0) return;
    const [hook] = this.beforeWriteHooks.splice(index, 1);
    hook!.run();
  }

  private dispatch(method: string, route: Route, query: URLSearchParams, body: unknown, contentType: string | undefined): [number, unknown] {
    const { plural, namespace, name, sub } = route;
    const type = TYPES[plural]!;
    if (!name) {
      if (method === 'GET') {
        const items = this.store.list(plural, namespace, query.get('labelSelector') ?? undefined);
        return [200, { apiVersion: type.apiVersion, kind: `${type.kind}List`, metadata: { resourceVersion: String(this.store.currentRv) }, items }];
      }
      if (method === 'POST' && namespace) return [201, this.store.create(plural, namespace, withKind(asObject(body), type))];
      throw new StoreError(405, 'MethodNotAllowed', `${method} is not allowed on a collection`);
    }
    if (!namespace) throw new StoreError(404, 'NotFound', 'namespaced resource without namespace');
    if (sub === 'scale') return this.scale(method, plural, namespace, name, body);
    switch (method) {
      case 'GET': {
        const found = this.store.get(plural, namespace, name);
        if (!found) throw new StoreError(404, 'NotFound', `${plural} "${name}" not found`);
        return [200, found];
      }
      case 'PUT':
        return [200, this.store.update(plural, namespace, name, asObject(body), sub ?? 'main')];
      case 'PATCH': {
        if (contentType?.split(';')[0] !== 'application/merge-patch+json') {
          throw new StoreError(415, 'UnsupportedMediaType', `the double applies application/merge-patch+json only, not ${contentType}`);
        }
        const current = this.store.get(plural, namespace, name);
        if (!current) throw new StoreError(404, 'NotFound', `${plural} "${name}" not found`);
        const patched = asObject(mergePatch(current, body));
        const patchRv = asObject(body).metadata?.resourceVersion;
        if (!patchRv) patched.metadata.resourceVersion = current.metadata.resourceVersion;
        return [200, this.store.update(plural, namespace, name, patched, sub ?? 'main')];
      }
      case 'DELETE':
        this.store.delete(plural, namespace, name);
        return [200, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', code: 200 }];
      default:
        throw new StoreError(405, 'MethodNotAllowed', `${method} is not allowed`);
    }
  }

  /** The scale subresource of WorkerPools: spec.replicas, status.replicas and status.selector. */
  private scale(method: string, plural: string, namespace: string, name: string, body: unknown): [number, unknown] {
    if (!TYPES[plural]!.scale) throw new StoreError(404, 'NotFound', `${plural} has no scale subresource`);
    const current = this.store.get(plural, namespace, name);
    if (!current) throw new StoreError(404, 'NotFound', `${plural} "${name}" not found`);
    if (method === 'PUT') {
      const replicas = Number((asObject(body).spec as { replicas?: number } | undefined)?.replicas);
      const next = { ...current, spec: { ...(current.spec as object), replicas } };
      return [200, scaleOf(this.store.update(plural, namespace, name, next as KObject, 'main'))];
    }
    if (method !== 'GET') throw new StoreError(405, 'MethodNotAllowed', `${method} is not allowed on scale`);
    return [200, scaleOf(current)];
  }

  private watch(route: Route, query: URLSearchParams, res: ServerResponse): void {
    const selector = query.get('labelSelector') ?? undefined;
    const from = query.get('resourceVersion') ?? '';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const write = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
    if (from !== '' && from !== '0' && Number(from) < this.store.compactedBelow) {
      write('ERROR', { apiVersion: 'v1', kind: 'Status', status: 'Failure', reason: 'Expired', code: 410, message: `too old resource version: ${from}` });
      res.end();
      return;
    }
    const watcher: Watcher = { plural: route.plural, namespace: route.namespace, selector, res };
    if (from === '' || from === '0') {
      for (const object of this.store.list(route.plural, route.namespace, selector)) write('ADDED', object);
    } else {
      for (const event of this.store.events) if (event.rv > Number(from) && matches(watcher, event)) write(event.type, event.object);
    }
    this.watchers.add(watcher);
    res.on('close', () => this.watchers.delete(watcher));
  }

  private broadcast(event: StoredEvent): void {
    for (const watcher of this.watchers) {
      if (matches(watcher, event)) watcher.res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
    }
  }
}

function matches(watcher: Watcher, event: StoredEvent): boolean {
  return (
    watcher.plural === event.plural &&
    (watcher.namespace === undefined || watcher.namespace === event.object.metadata.namespace) &&
    matchesSelector(event.object, watcher.selector)
  );
}

function parseRoute(path: string): Route {
  for (const [plural, type] of Object.entries(TYPES)) {
    if (!path.startsWith(`${type.prefix}/`)) continue;
    const parts = path.slice(type.prefix.length + 1).split('/');
    let namespace: string | undefined;
    if (parts[0] === 'namespaces') {
      namespace = parts[1];
      parts.splice(0, 2);
    }
    if (parts[0] !== plural) continue;
    const sub = parts[2];
    if (sub !== undefined && sub !== 'status' && sub !== 'scale') break;
    return { plural, namespace, name: parts[1], sub };
  }
  throw new StoreError(404, 'NotFound', `the double does not serve ${path}`);
}

function scaleOf(object: KObject): unknown {
  const spec = object.spec as { replicas?: number } | undefined;
  const status = object.status as { replicas?: number; selector?: string } | undefined;
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: object.metadata.name, namespace: object.metadata.namespace, resourceVersion: object.metadata.resourceVersion },
    spec: { replicas: spec?.replicas ?? 0 },
    status: { replicas: status?.replicas ?? 0, selector: status?.selector ?? '' },
  };
}

function withKind(object: KObject, type: { kind: string; apiVersion: string }): KObject {
  return { ...object, apiVersion: type.apiVersion, kind: type.kind };
}

function asObject(value: unknown): KObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreError(400, 'BadRequest', 'the body must be a JSON object');
  const object = value as KObject;
  return { ...object, metadata: { ...(object.metadata ?? { name: '' }) } };
}

function statusBody(error: StoreError): unknown {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: error.message, reason: error.reason, code: error.code };
}

function send(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(payload));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new StoreError(400, 'BadRequest', 'the body is not JSON');
  }
}
