// TEMPORARY: the MCP-client helper's schemas (RULES.md "API shapes"), until @svc/protocol exports them.
import { z } from 'zod';
import { TimestampSchema } from '@svc/protocol';

const McpServerFieldsSchema = z.object({
  transport: z.enum(['stdio', 'http']),
  command: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  allow_writes: z.boolean(),
  enabled: z.boolean(),
});
export type McpServerSettings = z.infer<typeof McpServerFieldsSchema>;

export const McpServerSchema = McpServerFieldsSchema.extend({
  name: z.string(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  updated_by: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type McpServer = z.infer<typeof McpServerSchema>;
export const McpServerListSchema = z.object({ items: z.array(McpServerSchema) });
