import { z } from 'zod';
import { USAGE_GROUPS } from '../../lib/store/usage.js';
import { dateTimeParameter } from '../../lib/validation/dates.js';

const dateTime = dateTimeParameter();
const environment = z.enum(['live', 'test']).default('live');

/** The query strings of GET /v1/usage and /v1/usage/summary, read by the routes and described by the API reference. */
export const UsageQuery = z.strictObject({ environment, at: dateTime.optional() });
export const SummaryQuery = z.strictObject({
  environment,
  from: dateTime.optional(),
  to: dateTime.optional(),
  group_by: z
    .string()
    .default('day')
    .transform((value) => [...new Set(value.split(',').map((g) => g.trim().toLowerCase()).filter(Boolean))])
    .pipe(z.array(z.enum(USAGE_GROUPS)).max(USAGE_GROUPS.length)),
});

