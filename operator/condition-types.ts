export const CONDITION = {
  available: 'Available',
  progressing: 'Progressing',
  degraded: 'Degraded',
} as const;
export type ConditionType = (typeof CONDITION)[keyof typeof CONDITION];

/** Reasons of the conditions, CamelCase as Kubernetes expects. */
export const REASON = {
  // healthy states
  asExpected: 'AsExpected',
  engineDeployable: 'EngineDeployable',
  minimumReplicasReady: 'MinimumReplicasReady',
  scaledToZero: 'ScaledToZero',
  rolloutComplete: 'RolloutComplete',
  // transitional states
  replicasNotReady: 'ReplicasNotReady',
  rollingOut: 'RollingOut',
  notDeployed: 'NotDeployed',
  // problems
  invalidSpec: 'InvalidSpec',
  engineNotDeployable: 'EngineNotDeployable',
  missingNatsUrl: 'MissingNatsUrl',
  engineNotFound: 'EngineNotFound',
  engineInvalid: 'EngineInvalid',
  deploymentNotOwned: 'DeploymentNotOwned',
  replicaFailure: 'ReplicaFailure',
  poolFileWritten: 'PoolFileWritten',
  secretMissing: 'SecretMissing',
  noHealthyExit: 'NoHealthyExit',
} as const;
export type Reason = (typeof REASON)[keyof typeof REASON];

/** metav1.Condition, as in kubebuilder's scaffold. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}
