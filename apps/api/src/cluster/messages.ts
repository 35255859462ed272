import type { BrowserCommandOutputMessage } from '@svc/protocol';
import type { StoredEvent } from '../events/types';

/** Stored events of one workflow that another replica committed: seqs `from`..`to` (read them from the table). */
export interface EventHint {
  workflow_id: string;
  project_id: string;
  from: number;
  to: number;
  /** some of them are also project-channel events (status, title) */
  project: boolean;
}

/**
 * What replicas tell each other. Every message is a hint: the database holds the truth, so a lost
 * message delays something until the next sweep or catch-up but never loses it.
 */
export type ClusterMessage =
  /** workflow events were committed: replicas with subscribers read them */
  | { type: 'events'; hints: EventHint[] }
  /** a notice that is not stored (project_changed, worker_status), carried whole */
  | { type: 'notice'; event: StoredEvent }
  /** live command output (not stored), in pieces that fit a payload */
  | { type: 'command_output'; message: BrowserCommandOutputMessage }
  /** something became dispatchable: every replica pumps its own workers */
  | { type: 'wake' }
  /** a new workflow wants a title: a replica with a free worker may grant a title job */
  | { type: 'title'; workflow_id: string }
  /** steering (answer, feedback, cancel) was recorded: the replica holding the worker's socket delivers it */
  | { type: 'steer'; workflow_id: string }
  /** timers changed: look at the table again */
  | { type: 'timers' }
  /** schedules changed: look at the table again */
  | { type: 'schedules' }
  /** secrets changed: rebuild the runs' maskers */
  | { type: 'secrets' }
  /** who holds these workflows changed: forget cached rows */
  | { type: 'forget'; workflow_ids: string[] }
  /** a token was revoked */
  | { type: 'revoked'; jti: string; expires_at: number }
  /** execute_on_worker for a worker connected to another replica: the one holding it runs it */
  | {
      type: 'exec';
      id: string;
      origin: string;
      target_worker: string;
      workflow_id: string;
      command: string;
      timeout_seconds?: number;
      project_id: string;
      /** the command's SVC_JWT, minted by the asker's replica */
      job_token: string;
    }
  /** a part of the result of an `exec`, for the replica that asked (`to`) */
  | {
      type: 'exec_result';
      id: string;
      to: string;
      part: number;
      parts: number;
      exit_code: number | null;
      output: string;
      timed_out: boolean;
      /**
       * A piece of the JSON of the result's `output_object` and `output_line_times` (decision 0081): the
       * parts after the output's carry it (with an empty `output`); older replicas ignore it.
       */
      extra?: string;
    };

export type ClusterMessageType = ClusterMessage['type'];
