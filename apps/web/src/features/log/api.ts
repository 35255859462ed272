import { z } from 'zod';
import { ExecutionLogEntrySchema, pageSchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

/** The log entry with the CONTRACT-V2 fields, defaulted for a server that does not send them yet. */
export const LogEntrySchema = ExecutionLogEntrySchema.extend({
  revision: z.int().min(0).default(0),
  duration_ms: z.int().min(0).nullable().default(null),
  command: z.string().nullable().default(null),
});

export const LOG_PAGE_SIZE = 500;

export const getLogPage = (workflowId: string, cursor?: string) =>
  apiJson(`/workflows/${encodeURIComponent(workflowId)}/log`, pageSchema(LogEntrySchema), {
    query: { limit: LOG_PAGE_SIZE, cursor },
  });
