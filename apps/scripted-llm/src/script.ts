import { z } from 'zod';
import { unknownTemplateVariables } from './template';

/** One or more substrings; a list means every entry must be present. */
const containsSchema = z
  .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
  .transform((value) => (typeof value === 'string' ? [value] : value));

const matchSchema = z
  .object({
    system_contains: containsSchema.optional(),
    user_contains: containsSchema.optional(),
    last_message_contains: containsSchema.optional(),
    tools_include: z.array(z.string().min(1)).min(1).optional(),
    model: z.string().min(1).optional(),
  })
  .strict();

const toolCallSchema = z
  .object({
    name: z.string().min(1),
    /** An object is sent as its JSON text; a string is sent as is (useful to test malformed arguments). */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
    id: z.string().min(1).optional(),
  })
  .strict();

const errorSpecSchema = z
  .object({
    status: z.number().int().min(400).max(599),
    message: z.string().min(1),
    type: z.string().min(1).optional(),
    code: z.string().min(1).optional(),
    /** Sent as the `retry-after-ms` header, which the openai client honours between retries. */
    retry_after_ms: z.number().int().nonnegative().optional(),
    /** Sent as the `retry-after` header: whole seconds, as most providers send it. */
    retry_after: z.number().int().nonnegative().optional(),
  })
  .strict();

const replyFields = {
  content: z.string().nullable().optional(),
  tool_calls: z.array(toolCallSchema).min(1).optional(),
  finish_reason: z.enum(['stop', 'length', 'tool_calls', 'content_filter']).optional(),
  /** `false`: the reply carries no `usage` (some compatible servers omit it). Default true. */
  usage: z.boolean().optional(),
  error: errorSpecSchema.optional(),
  delay_ms: z.number().int().nonnegative().max(600_000).optional(),
};

type ReplyShape = { content?: string | null; tool_calls?: unknown[]; error?: unknown; usage?: boolean };

function checkReplyShape(reply: ReplyShape, ctx: z.RefinementCtx): void {
  const hasAnswer = reply.content !== undefined || reply.tool_calls !== undefined;
  if (reply.error !== undefined && hasAnswer) {
    ctx.addIssue({ code: 'custom', message: 'a response with `error` cannot also have `content` or `tool_calls`' });
  }
  if (reply.error !== undefined && reply.usage !== undefined) {
    ctx.addIssue({ code: 'custom', message: 'a response with `error` has no `usage` to leave out' });
  }
  if (reply.error === undefined && !hasAnswer) {
    ctx.addIssue({ code: 'custom', message: 'a response needs `content` and/or `tool_calls`, or an `error`' });
  }
}

function checkTemplates(reply: ReplyShape, ctx: z.RefinementCtx): void {
  for (const name of unknownTemplateVariables([reply.content, reply.tool_calls])) {
    ctx.addIssue({ code: 'custom', message: `unknown template variable {{${name}}}` });
  }
}

/** What a JS handler returns: one reply, used verbatim (no templates, no `times`). */
export const replySchema = z.object(replyFields).strict().superRefine(checkReplyShape);

/** One entry of a rule's `responses`; `times` repeats it before the next entry. */
export const responseSchema = z
  .object({ ...replyFields, times: z.number().int().positive().optional() })
  .strict()
  .superRefine((response, ctx) => {
    checkReplyShape(response, ctx);
    checkTemplates(response, ctx);
  });

const ruleSchema = z
  .object({
    name: z.string().min(1).optional(),
    match: matchSchema.default({}),
    /** `sequence`: consume in order with a per-rule counter. `by_turn`: pick by the number of assistant messages. */
    select: z.enum(['sequence', 'by_turn']).default('sequence'),
    responses: z.array(responseSchema).min(1),
    repeat_last: z.boolean().default(false),
    delay_ms: z.number().int().nonnegative().max(600_000).optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.select === 'by_turn' && rule.responses.some((response) => response.times !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: '`times` needs `select: sequence` (by_turn picks by turn, not by count)',
      });
    }
  });

export const scriptSchema = z
  .object({
    /** Ids listed by GET /v1/models. */
    models: z.array(z.string().min(1)).min(1).default(['scripted']),
    /** Answer used when no rule matches; without it such a request gets 400 `no_matching_rule`. */
    fallback: responseSchema.optional(),
    rules: z.array(ruleSchema).default([]),
  })
  .strict();

/** A script as written (YAML, JSON or an object literal). */
export type Script = z.input<typeof scriptSchema>;
/** A script after validation and defaults. */
export type ParsedScript = z.output<typeof scriptSchema>;
export type ScriptRule = ParsedScript['rules'][number];
export type ScriptResponse = z.output<typeof responseSchema>;
export type ScriptedReply = z.input<typeof replySchema>;
export type ErrorSpec = z.output<typeof errorSpecSchema>;
