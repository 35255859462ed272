import { z } from 'zod';
import { IdSchema, LlmCallPageSchema, TimestampSchema, type LlmCallLog } from '@svc/protocol';
import { apiJson } from '../../lib/api';

const base = (workflowId: string) => `/workflows/${encodeURIComponent(workflowId)}/llm-calls`;

export type LlmCall = LlmCallLog;

export const LLM_PAGE_SIZE = 500;

export const getLlmCallPage = (workflowId: string, cursor?: string) =>
  apiJson(base(workflowId), LlmCallPageSchema, {
    query: { limit: LLM_PAGE_SIZE, cursor },
  });

const ToolCallSchema = z
  .object({
    id: z.string().optional(),
    type: z.string().optional(),
    function: z.object({ name: z.string(), arguments: z.string() }).partial().optional(),
  })
  .loose();

/** An OpenAI chat message as the worker sent or got it; content may be text, parts or absent. */
export const ChatMessageSchema = z
  .object({
    role: z.string(),
    content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
    name: z.string().optional(),
    tool_call_id: z.string().optional(),
    tool_calls: z.array(ToolCallSchema).nullable().optional(),
  })
  .loose();
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** An OpenAI tool definition the request offered; the parameters are a JSON schema. */
const ToolDefinitionSchema = z
  .object({
    type: z.string().optional(),
    function: z
      .object({ name: z.string(), description: z.string().optional(), parameters: z.unknown() })
      .partial()
      .optional(),
  })
  .loose();
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

export const LlmCallDetailSchema = z.object({
  id: IdSchema,
  messages: z.array(ChatMessageSchema),
  reply: ChatMessageSchema.nullable(),
  tools: z.array(ToolDefinitionSchema).optional(),
  truncated: z.boolean(),
  created_at: TimestampSchema,
});
export type LlmCallDetail = z.infer<typeof LlmCallDetailSchema>;

export const getLlmCallDetail = (workflowId: string, callId: string) =>
  apiJson(`${base(workflowId)}/${encodeURIComponent(callId)}`, LlmCallDetailSchema);
