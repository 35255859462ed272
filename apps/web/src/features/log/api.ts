import { z } from 'zod';
import { ExecutionLogEntrySchema, OutputLineTimesSchema, pageSchema } from '@svc/protocol';
import { apiJson, apiUrl } from '../../lib/api';

/** The log entry with the CONTRACT-V2 fields, defaulted for a server that does not send them yet. */
export const LogEntrySchema = ExecutionLogEntrySchema.extend({
  revision: z.int().min(0).default(0),
  duration_ms: z.int().min(0).nullable().default(null),
  command: z.string().nullable().default(null),
  output_total_bytes: z.int().min(0).nullable().default(null),
  output_line_times: OutputLineTimesSchema.nullable().default(null),
});

export const LOG_PAGE_SIZE = 500;

/** The raw log download (decision 0073): one step's (0-based index) or, with null, the whole run's. */
export const rawLogUrl = (workflowId: string, step: number | null) =>
  apiUrl(`/workflows/${encodeURIComponent(workflowId)}/log/raw`, { step: step ?? undefined });

export const getLogPage = (workflowId: string, cursor?: string) =>
  apiJson(`/workflows/${encodeURIComponent(workflowId)}/log`, pageSchema(LogEntrySchema), {
    query: { limit: LOG_PAGE_SIZE, cursor },
  });
