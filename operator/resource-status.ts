import type { Condition } from './condition-types.js';

export interface WorkerPoolStatus {
  observedGeneration: number;
  engine: string;
  deploymentName: string;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  selector: string;
  conditions: Condition[];
}

export interface ScrapeEngineStatus {
  observedGeneration: number;
  engine: string;
  pools: string[];
  conditions: Condition[];
}
