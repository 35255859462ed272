import {
  PullRequestOpenedEventDataSchema,
  RepositoryPushedEventDataSchema,
  WorkflowActionEventDataSchema,
  type PullRequestOpenedEventData,
  type RepositoryPushedEventData,
  type WorkflowActionEventData,
} from '@svc/protocol';

/** An event as it arrives, live or replayed: its data is read by the schema of its type. */
export interface EventEnvelope {
  type: string;
  seq: number;
  ts: string;
  data: unknown;
}

/** One `workflow_action` event as the page keeps it: the data plus its seq and time. */
export interface WorkflowAction extends WorkflowActionEventData {
  seq: number;
  ts: string;
}

/** A `workflow_action` envelope (live or replayed), or null for any other event. */
export function workflowActionOf(event: EventEnvelope): WorkflowAction | null {
  if (event.type !== 'workflow_action') return null;
  const data = WorkflowActionEventDataSchema.safeParse(event.data);
  return data.success ? { ...data.data, seq: event.seq, ts: event.ts } : null;
}

/**
 * A `repository_pushed` event's data; `head_sha`, `error` and `commits` may be missing (read as null),
 * so an event without them still says which branch was pushed.
 */
const PushedDataSchema = RepositoryPushedEventDataSchema.extend({
  head_sha: RepositoryPushedEventDataSchema.shape.head_sha.optional().transform((v) => v ?? null),
  error: RepositoryPushedEventDataSchema.shape.error.optional().transform((v) => v ?? null),
  commits: RepositoryPushedEventDataSchema.shape.commits.optional().transform((v) => v ?? null),
});

/** The run's branch was pushed (or its push failed): `repository_pushed`. */
export interface PushedEntry extends RepositoryPushedEventData {
  kind: 'repository_pushed';
  seq: number;
  ts: string;
}

/** The server opened the run's pull/merge request: `pull_request_opened`. */
export interface PullRequestEntry extends PullRequestOpenedEventData {
  kind: 'pull_request_opened';
  seq: number;
  ts: string;
}

/** What happened to the run's repository, as the activity list shows it. */
export type RepositoryEntry = PushedEntry | PullRequestEntry;

/** A `repository_pushed` or `pull_request_opened` envelope, or null for any other event or malformed data. */
export function repositoryEntryOf(event: EventEnvelope): RepositoryEntry | null {
  const at = { seq: event.seq, ts: event.ts };
  if (event.type === 'repository_pushed') {
    const data = PushedDataSchema.safeParse(event.data);
    return data.success ? { kind: 'repository_pushed', ...data.data, ...at } : null;
  }
  if (event.type === 'pull_request_opened') {
    const data = PullRequestOpenedEventDataSchema.safeParse(event.data);
    return data.success ? { kind: 'pull_request_opened', ...data.data, ...at } : null;
  }
  return null;
}

/** One line of the run's activity list: a person's action or what happened to its repository. */
export type ActivityEntry = ({ kind: 'workflow_action' } & WorkflowAction) | RepositoryEntry;

/** Adds an item unless its seq is known, keeping seq order (a replay may overlap live events). */
export function addBySeq<T extends { seq: number }>(items: readonly T[], item: T): T[] {
  if (items.some((i) => i.seq === item.seq)) return items as T[];
  return [...items, item].sort((a, b) => a.seq - b.seq);
}

/** The activity list: actions and repository events together, each seq once, in seq order. */
export function activityEntries(
  actions: readonly WorkflowAction[],
  repository: readonly RepositoryEntry[],
): ActivityEntry[] {
  const all: ActivityEntry[] = actions.map((action) => ({ ...action, kind: 'workflow_action' as const }));
  return repository.reduce<ActivityEntry[]>((list, entry) => addBySeq(list, entry), [...all].sort(bySeq));
}

const bySeq = (a: { seq: number }, b: { seq: number }) => a.seq - b.seq;

/** A link only to a web address: anything else (javascript:, data:, a relative path) is shown as text. */
export function webUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}
