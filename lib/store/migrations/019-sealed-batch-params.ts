/**
 * Secrets of batch parameters sealed at rest (lib/store/batch/sealed-params.ts): `batch_jobs.params`
 * and `batch_items.overrides` keep the redacted form; the hidden values are in `sealed_params` /
 * `sealed_overrides` ('' = none). Rows that hold no proxy and no custom headers are marked '' here;
 * the others stay null until the gateway's start-up pass seals them (it needs the sealing key).
 */
export const up = `
ALTER TABLE batch_jobs ADD COLUMN IF NOT EXISTS sealed_params text;
ALTER TABLE batch_items ADD COLUMN IF NOT EXISTS sealed_overrides text;
UPDATE batch_jobs SET sealed_params = '' WHERE sealed_params IS NULL AND NOT (params ? 'proxy' OR params ? 'custom_headers');
UPDATE batch_items SET sealed_overrides = '' WHERE sealed_overrides IS NULL AND NOT (overrides ? 'proxy' OR overrides ? 'custom_headers');
`;
