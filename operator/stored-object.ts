import { z } from 'zod';
import type { Condition } from './condition-types.js';

/** The metadata fields the operator reads; the API server always fills them for stored objects. */
const MetadataSchema = z.object({
  name: z.string(),
  namespace: z.string(),
  uid: z.string().default(''),
  generation: z.number().int().default(0),
  resourceVersion: z.string().optional(),
  /** Set once a delete waits on finalizers (someone else's: the operator adds none); then the object is left alone. */
  deletionTimestamp: z.string().optional(),
});
export type ObjectMeta = z.infer<typeof MetadataSchema>;

const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string(),
  message: z.string().default(''),
  lastTransitionTime: z.string(),
  observedGeneration: z.number().int().optional(),
});
const conditionsOf = (status: unknown): Condition[] => {
  const parsed = z.object({ conditions: z.array(ConditionSchema).default([]) }).safeParse(status ?? {});
  return parsed.success ? parsed.data.conditions : [];
};

/** A stored custom object as read: metadata checked, spec still raw (validated in the reconcile). */
export interface StoredObject {
  metadata: ObjectMeta;
  spec: unknown;
  status: unknown;
  conditions: Condition[];
}

export function readStoredObject(raw: unknown): StoredObject {
  const parsed = z
    .object({ metadata: MetadataSchema, spec: z.unknown().optional(), status: z.unknown().optional() })
    .parse(raw);
  return { metadata: parsed.metadata, spec: parsed.spec, status: parsed.status, conditions: conditionsOf(parsed.status) };
}
