/**
 * A cached result is stored as its JSON text, not jsonb: jsonb refuses `\u0000` and lone surrogates,
 * which target pages may contain, while JSON.stringify writes both as plain ASCII escapes.
 */
export const up = `
ALTER TABLE scrape_cache ALTER COLUMN result TYPE text USING result::text;
`;
