import type { StorageArea } from './storage';

/** The templates a workflow can start from (branches of the template git repository). */
export interface TemplateCatalog {
  list(): Promise<{ name: string; description: string }[]>;
  /** Copies the template's files into a workspace; throws DomainError not_found for an unknown name. */
  materialize(name: string, target: StorageArea): Promise<void>;
  /** The worker labels a run of the template requires (a `.svc-requires` file of its branch); none by default. */
  requires?(name: string): Promise<string[]>;
  /** The instance secrets (visibility `templates`) a run of the template gets: its branch's `.svc-secrets` file. */
  secretNames?(name: string): Promise<string[]>;
}
