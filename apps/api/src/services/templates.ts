/** The templates a workflow can start from (branches of the template git repository). */
export interface TemplateCatalog {
  list(): Promise<{ name: string; description: string }[]>;
  /** Copies the template's files into `targetDir`; throws DomainError not_found for an unknown name. */
  materialize(name: string, targetDir: string): Promise<void>;
}
