import type { RunSecret } from '@svc/protocol';
import { SecretMasker } from '@svc/text';

/**
 * The secrets one run (or one `exec` for another worker's run) received with its dispatch: held in
 * memory only, for as long as that run or exec lasts. They become the command's environment
 * variables; their values (and encodings) are masked in everything sent for the run.
 */
export class RunSecrets {
  static readonly none = new RunSecrets([]);

  readonly masker: SecretMasker;
  private readonly byName: ReadonlyMap<string, string>;

  constructor(secrets: readonly RunSecret[] = []) {
    // A name given twice: the later one wins, as it would in an environment.
    this.byName = new Map(secrets.map((s) => [s.name, s.value]));
    this.masker = new SecretMasker([...this.byName.values()]);
  }

  /** The names, sorted: what the agent's prompt lists (never the values). */
  get names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Name and value pairs, for the `${{ secrets.NAME }}` of the run's MCP servers. */
  get list(): RunSecret[] {
    return [...this.byName].map(([name, value]) => ({ name, value }));
  }

  get values(): string[] {
    return [...this.byName.values()];
  }

  /** The variables a command of this run gets on top of the worker's own. */
  env(): Record<string, string> {
    return Object.fromEntries(this.byName);
  }

  mask(text: string): string {
    return this.masker.mask(text);
  }
}
