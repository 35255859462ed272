import type { CreateWorkflowRequest } from '@svc/protocol';

/** The advanced queueing fields of a new run (decision 0037), as the form holds them. */
export interface QueueChoice {
  priority: string;
  concurrencyKey: string;
  cancelInProgress: boolean;
}

export const NO_QUEUE_CHOICE: QueueChoice = { priority: '', concurrencyKey: '', cancelInProgress: false };

/** The create request's fields for the choice: only what was filled in. */
export function queueFields(choice: QueueChoice): Partial<CreateWorkflowRequest> {
  const key = choice.concurrencyKey.trim();
  const priority = choice.priority.trim() === '' ? undefined : Number(choice.priority);
  return {
    ...(priority !== undefined && Number.isFinite(priority) ? { priority } : {}),
    ...(key ? { concurrency_key: key } : {}),
    ...(key && choice.cancelInProgress ? { concurrency_mode: 'cancel_in_progress' as const } : {}),
  };
}

interface Props {
  choice: QueueChoice;
  onChange(choice: QueueChoice): void;
}

/** Priority and concurrency key, folded away: most runs need neither. */
export function QueueOptions({ choice, onChange }: Props) {
  const set = (patch: Partial<QueueChoice>) => onChange({ ...choice, ...patch });
  return (
    <details className="queue-options">
      <summary>Queueing</summary>
      <div className="row">
        <label>
          Priority
          <input
            type="number"
            name="priority"
            min={-1000}
            max={1000}
            step={1}
            placeholder="0"
            value={choice.priority}
            onChange={(e) => set({ priority: e.target.value })}
          />
        </label>
        <label>
          Concurrency key
          <input
            type="text"
            name="concurrency_key"
            maxLength={200}
            placeholder="e.g. a branch"
            value={choice.concurrencyKey}
            onChange={(e) => set({ concurrencyKey: e.target.value })}
          />
        </label>
        <label>
          <input
            type="checkbox"
            name="cancel_in_progress"
            checked={choice.cancelInProgress}
            disabled={!choice.concurrencyKey.trim()}
            onChange={(e) => set({ cancelInProgress: e.target.checked })}
          />
          Cancel the key&apos;s runs in progress
        </label>
      </div>
      <p className="hint">
        Higher priority goes first. Runs with one key run one at a time, oldest first; or a new one cancels the older
        ones.
      </p>
    </details>
  );
}
