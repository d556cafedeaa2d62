import { randomUUID } from 'node:crypto';

/** A stored Kubernetes object, as JSON. */
export type KObject = Record<string, unknown> & { metadata: Metadata };
export interface Metadata extends Record<string, unknown> {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: Array<{ uid: string; kind: string; name: string; controller?: boolean }>;
}
export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export interface StoredEvent {
  rv: number;
  plural: string;
  type: EventType;
  object: KObject;
}

export class StoreError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export const clone = <T>(value: T): T => structuredClone(value);

/** JSON with sorted keys, for "did the spec change" comparisons. */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === 'object' && v !== null) {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => x !== undefined)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, x]) => [k, sort(x)]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return clone(patch);
  const base: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}

export function matchesSelector(object: KObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = object.metadata.labels ?? {};
  return selector.split(',').every((term) => {
    const [key, value] = term.split(/==?/);
    return key !== undefined && labels[key.trim()] === value?.trim();
  });
}

/**
 * The in-memory store of the API server double: one monotonically increasing resourceVersion for
 * every write, an event log that watches replay from, and optional garbage collection of dependents.
 */
export class ObjectStore {
  private readonly objects = new Map<string, KObject>();
  readonly events: StoredEvent[] = [];
  private rv = 100;
  /** Watches from a resourceVersion below this get 410 Gone. */
  compactedBelow = 0;
  private readonly listeners = new Set<(event: StoredEvent) => void>();

  constructor(private readonly collectGarbage: boolean) {}

  get currentRv(): number {
    return this.rv;
  }

  onEvent(listener: (event: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(plural: string, namespace: string, name: string): KObject | undefined {
    const found = this.objects.get(`${plural}/${namespace}/${name}`);
    return found ? clone(found) : undefined;
  }

  list(plural: string, namespace?: string, selector?: string): KObject[] {
    return [...this.objects.entries()]
      .filter(([key]) => key.startsWith(`${plural}/${namespace === undefined ? '' : `${namespace}/`}`))
      .map(([, o]) => clone(o))
      .filter((o) => matchesSelector(o, selector))
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
  }

  lastEventRv(plural: string): number {
    for (let i = this.events.length - 1; i >= 0; i -= 1) if (this.events[i]!.plural === plural) return this.events[i]!.rv;
    return 0;
  }

  create(plural: string, namespace: string, body: KObject): KObject {
    const name = body.metadata?.name;
    if (!name) throw new StoreError(422, 'Invalid', 'metadata.name is required');
    if (this.objects.has(`${plural}/${namespace}/${name}`)) throw new StoreError(409, 'AlreadyExists', `${plural} "${name}" already exists`);
    const object = clone(body);
    delete object.status;
    object.metadata = {
      ...object.metadata,
      namespace,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: new Date().toISOString(),
    };
    return this.commit(plural, 'ADDED', object);
  }

  /** A write of the main resource (spec, metadata) or of its status, with optimistic concurrency. */
  update(plural: string, namespace: string, name: string, next: KObject, part: 'main' | 'status'): KObject {
    const current = this.require(plural, namespace, name);
    const sentRv = next.metadata?.resourceVersion;
    if (sentRv && sentRv !== current.metadata.resourceVersion) {
      throw new StoreError(409, 'Conflict', `Operation cannot be fulfilled on ${plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    const object = clone(current);
    if (part === 'status') {
      object.status = clone(next.status);
    } else {
      for (const [key, value] of Object.entries(next)) if (key !== 'metadata' && key !== 'status') object[key] = clone(value);
      for (const key of Object.keys(object)) if (!(key in next) && key !== 'metadata' && key !== 'status') delete object[key];
      const { labels, annotations, ownerReferences, finalizers } = next.metadata ?? {};
      object.metadata = { ...object.metadata, labels, annotations, ownerReferences, finalizers } as Metadata;
      if (canonical(current.spec) !== canonical(object.spec)) object.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    if (canonical(object) === canonical(current)) return current;
    if (object.metadata.deletionTimestamp && !object.metadata.finalizers?.length) return this.remove(plural, namespace, name, object);
    return this.commit(plural, 'MODIFIED', object);
  }

  /** As the API server: an object with finalizers only gets a deletionTimestamp; it goes once they are removed. */
  delete(plural: string, namespace: string, name: string): KObject {
    const current = this.require(plural, namespace, name);
    if (!current.metadata.finalizers?.length) return this.remove(plural, namespace, name, current);
    if (current.metadata.deletionTimestamp) return current;
    return this.commit(plural, 'MODIFIED', { ...current, metadata: { ...current.metadata, deletionTimestamp: new Date().toISOString() } });
  }

  private remove(plural: string, namespace: string, name: string, current: KObject): KObject {
    this.objects.delete(`${plural}/${namespace}/${name}`);
    const gone = this.commit(plural, 'DELETED', current, false);
    if (this.collectGarbage) this.collectDependents(current.metadata.uid ?? '');
    return gone;
  }

  private collectDependents(ownerUid: string): void {
    for (const [key, object] of [...this.objects.entries()]) {
      if (!object.metadata.ownerReferences?.some((ref) => ref.uid === ownerUid)) continue;
      const [plural, namespace, name] = key.split('/');
      this.delete(plural!, namespace!, name!);
    }
  }

  private require(plural: string, namespace: string, name: string): KObject {
    const current = this.objects.get(`${plural}/${namespace}/${name}`);
    if (!current) throw new StoreError(404, 'NotFound', `${plural} "${name}" not found`);
    return clone(current);
  }

  private commit(plural: string, type: EventType, object: KObject, store = true): KObject {
    this.rv += 1;
    object.metadata.resourceVersion = String(this.rv);
    if (store) this.objects.set(`${plural}/${object.metadata.namespace}/${object.metadata.name}`, clone(object));
    const event: StoredEvent = { rv: this.rv, plural, type, object: clone(object) };
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return clone(object);
  }
}
