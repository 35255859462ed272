import { SecretMasker } from '@svc/text';
import type { RunSecrets } from './run-secrets';

const NO_SECRETS = new SecretMasker([]);

/**
 * The secrets every workflow's work on this worker holds right now (its run, its title generation,
 * an `exec` for it): what the uplink and the LLM client mask by workflow id, since everything sent
 * for a workflow passes them. A hold is released when that work ends; nothing outlives it.
 */
export class WorkflowSecrets {
  private readonly holds = new Map<string, Set<RunSecrets>>();
  private readonly maskers = new Map<string, SecretMasker>();

  /** Holds `secrets` for the workflow until the returned release is called (once is enough; more are no-ops). */
  hold(workflowId: string, secrets: RunSecrets): () => void {
    if (secrets.masker.isEmpty) return () => undefined;
    const held = this.holds.get(workflowId) ?? new Set<RunSecrets>();
    held.add(secrets);
    this.holds.set(workflowId, held);
    this.rebuild(workflowId);
    return () => {
      if (!held.delete(secrets)) return;
      if (held.size === 0 && this.holds.get(workflowId) === held) this.holds.delete(workflowId);
      this.rebuild(workflowId);
    };
  }

  /** Masks every value the workflow's current holds carry; masks nothing when it holds none. */
  maskerFor(workflowId: string): SecretMasker {
    return this.maskers.get(workflowId) ?? NO_SECRETS;
  }

  private rebuild(workflowId: string): void {
    const held = this.holds.get(workflowId);
    if (!held) {
      this.maskers.delete(workflowId);
      return;
    }
    this.maskers.set(workflowId, new SecretMasker([...held].flatMap((secrets) => secrets.values)));
  }
}
