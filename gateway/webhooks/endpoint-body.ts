import { z } from 'zod';
import { storableString } from '../../lib/validation/storable.js';

/** The body of POST /v1/webhooks, read by the route and described by the API reference. */
export const CreateEndpointSchema = z.strictObject({
  url: storableString().min(1).max(2048),
  secret: storableString().min(16, 'must be at least 16 characters').max(256).nullish(),
});
