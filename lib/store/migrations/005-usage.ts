/** What usage summaries group by: the request a hold belongs to and the engine that was billed. */
export const up = `
ALTER TABLE credit_reservations ADD COLUMN IF NOT EXISTS request_id text;
ALTER TABLE credit_reservations ADD COLUMN IF NOT EXISTS engine text;
CREATE INDEX IF NOT EXISTS credit_reservations_org_time ON credit_reservations (organization_id, created_at);
`;
