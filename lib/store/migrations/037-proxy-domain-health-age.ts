/**
 * The per-domain health rows of pool exits are pruned by age and count (lib/store/proxy-pools.ts,
 * pruneDomainHealth): both walk them by `updated_at`. Numbered 36: the next free after main's 35.
 */
export const up = `
CREATE INDEX IF NOT EXISTS proxy_exit_health_domain_age ON proxy_exit_health (updated_at) WHERE domain <> '';
`;
