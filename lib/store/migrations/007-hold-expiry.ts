/**
 * A scrape's hold expires (a crashed gateway's hold is released at 0); a batch item's hold has no
 * expiry, because the batch lifecycle settles it however long the job waits.
 */
export const up = `
ALTER TABLE credit_reservations ADD COLUMN IF NOT EXISTS expires_at timestamptz;
CREATE INDEX IF NOT EXISTS credit_reservations_expiry ON credit_reservations (expires_at) WHERE settled_at IS NULL;
`;
