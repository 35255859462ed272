import { z } from 'zod';
import { IdSchema, TimestampSchema } from '@svc/protocol';

/*
 * The ephemeral `command_output` browser message (CONTRACT-V2 "Execution log and live command output"):
 * relayed by the server outside the seq envelope, never stored or replayed. Parsed here, at the socket,
 * so a message of a newer server that does not fit is dropped instead of reaching a view.
 */

const started = z.object({
  call_id: IdSchema,
  event: z.literal('started'),
  step_index: z.int().min(0).nullable(),
  command: z.string(),
  started_at: TimestampSchema,
});
const output = z.object({
  call_id: IdSchema,
  event: z.literal('output'),
  stream: z.enum(['stdout', 'stderr']),
  offset: z.int().min(0),
  chunk: z.string(),
});
const finished = z.object({
  call_id: IdSchema,
  event: z.literal('finished'),
  exit_code: z.int().nullable(),
  duration_ms: z.int().min(0),
});

export const CommandOutputDataSchema = z.discriminatedUnion('event', [started, output, finished]);
export type CommandOutputData = z.infer<typeof CommandOutputDataSchema>;

export const CommandOutputMessageSchema = z.object({
  type: z.literal('command_output'),
  workflow_id: IdSchema,
  data: CommandOutputDataSchema,
});
export type CommandOutputMessage = z.infer<typeof CommandOutputMessageSchema>;

/** What a listener gets: the message's data (the workflow is the one it listens to). */
export type CommandOutputEvent = CommandOutputData;
