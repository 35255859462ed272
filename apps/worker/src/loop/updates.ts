import { toSnapshot, type AgentState } from '@svc/agent-core';
import type {
  FileChangedUpdateData,
  LogEntryUpdateData,
  RepositoryUpdateData,
  StatusUpdateData,
  StepDiffUpdateData,
  WorkflowStatus,
} from '@svc/protocol';
import type { ServerLink } from '../link/server-link';

/** The updates of one workflow, as typed calls. */
export class WorkflowUpdates {
  constructor(
    private readonly link: ServerLink,
    readonly workflowId: string,
  ) {}

  status(status: WorkflowStatus, extra: Omit<StatusUpdateData, 'status'> = {}): void {
    this.link.sendUpdate(this.workflowId, { kind: 'status', data: { status, ...extra } });
  }

  snapshot(state: AgentState): void {
    this.link.sendUpdate(this.workflowId, { kind: 'snapshot', data: toSnapshot(state) });
  }

  log(data: LogEntryUpdateData): void {
    this.link.sendUpdate(this.workflowId, { kind: 'log_entry', data });
  }

  filesChanged(changes: readonly FileChangedUpdateData[]): void {
    for (const data of changes) this.link.sendUpdate(this.workflowId, { kind: 'file_changed', data });
  }

  stepDiff(data: StepDiffUpdateData): void {
    this.link.sendUpdate(this.workflowId, { kind: 'step_diff', data });
  }

  /** The run's branch after its push (or the push's failure), with its diff against the base (decision 0046). */
  repository(data: RepositoryUpdateData): void {
    this.link.sendUpdate(this.workflowId, { kind: 'repository', data });
  }

  title(title: string): void {
    this.link.sendUpdate(this.workflowId, { kind: 'title', data: { title } });
  }

  report(path: string, appUrl: string | null): void {
    this.link.sendUpdate(this.workflowId, { kind: 'report', data: { path, app_url: appUrl } });
  }
}
