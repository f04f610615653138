// Request bodies of the API keys endpoints.
import { z } from 'zod';
import { API_KEY_SCOPES } from './scopes.js';

export const NewApiKeyBody = z.object({
  name: z.string().trim().min(1).max(200),
  scopes: z.array(z.enum(API_KEY_SCOPES)).min(1).max(API_KEY_SCOPES.length),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
}).strict();
export type NewApiKey = z.infer<typeof NewApiKeyBody>;
