import type { Readable, Writable } from 'node:stream';
import { SvcClient, type Fetch } from '@svc/client';
import { ProjectListSchema, type Project } from '@svc/protocol';
import { configFilePath, readConfigFile, resolveSettings, type FileConfig, type Settings } from './config';
import type { CliEnv } from './env';
import { CliError, EXIT, usageError } from './errors';
import { ProgressBar } from './progress';
import { terminalSafe } from './terminal-text';

/** The process around the CLI, injected so that tests can run `main` in-process too. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdinIsTty: boolean;
  stderrIsTty: boolean;
  env: CliEnv;
  fetch?: Fetch;
  /** Opens a URL in the user's browser; resolves false when it could not. */
  openBrowser?: (url: string) => Promise<boolean>;
}

/** Options every command takes (see `svc --help`). */
export interface GlobalOptions {
  url?: string;
  token?: string;
  config?: string;
  json?: boolean;
  progress?: boolean;
  verbose?: boolean;
}

/** What a command runs with: settings (flags > env > file), output, the REST client. */
export class Context {
  readonly settings: Settings;
  readonly json: boolean;
  readonly verbose: boolean;
  private readonly fileConfig: FileConfig;
  private cachedClient: SvcClient | null = null;

  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions & { project?: string },
  ) {
    const file = configFilePath(io.env, options.config);
    this.fileConfig = readConfigFile(file);
    this.settings = resolveSettings(
      { url: options.url, token: options.token, project: options.project },
      io.env,
      file,
      this.fileConfig,
    );
    this.json = options.json === true;
    this.verbose = options.verbose === true;
  }

  get file(): FileConfig {
    return this.fileConfig;
  }

  /** The server URL or a usage error saying how to give one. */
  url(): string {
    const url = this.settings.url;
    if (!url) throw usageError('no server URL: pass --url, set SVC_URL, or run `svc login --url <url>`');
    return url;
  }

  /** The REST client with the bearer token. */
  client(): SvcClient {
    if (this.cachedClient) return this.cachedClient;
    const token = this.settings.token;
    if (!token) throw usageError('not signed in: run `svc login`, pass --token, or set SVC_TOKEN');
    this.cachedClient = this.clientFor(token);
    return this.cachedClient;
  }

  /** A client without credentials (public endpoints). */
  publicClient(): SvcClient {
    return new SvcClient({ baseUrl: this.url(), auth: { credentials: 'same-origin' }, fetch: this.io.fetch });
  }

  clientFor(token: string): SvcClient {
    return new SvcClient({ baseUrl: this.url(), auth: { bearer: token }, fetch: this.io.fetch });
  }

  /** Writes one line to stdout, its control characters escaped (terminal-text.ts). */
  out(text: string): void {
    const safe = terminalSafe(text);
    this.io.stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  /** The command's result: JSON (`--json`) or the text for a person. */
  result(json: unknown, human: string | (() => string)): void {
    if (this.json) this.out(JSON.stringify(json));
    else {
      const text = typeof human === 'function' ? human() : human;
      if (text) this.out(text);
    }
  }

  /** A note for a person on stderr (never mixed into stdout, so `--json` output stays parseable). */
  note(text: string): void {
    const safe = terminalSafe(text);
    this.io.stderr.write(safe.endsWith('\n') ? safe : `${safe}\n`);
  }

  /** A progress bar on stderr, only when stderr is a terminal (and not turned off). */
  progress(label: string, total: number | null): ProgressBar | null {
    if (!this.io.stderrIsTty || this.options.progress === false) return null;
    return new ProgressBar(this.io.stderr, label, total);
  }

  /** The project a command acts on (`--project`, SVC_PROJECT or the config file's `project`): id or name. */
  async projectId(): Promise<string> {
    const wanted = this.settings.project;
    if (!wanted)
      throw usageError('no project: pass --project <id|name>, set SVC_PROJECT, or set `project` in the config');
    const projects: Project[] = await this.client().request('/projects', ProjectListSchema);
    const byId = projects.find((p) => p.id === wanted);
    if (byId) return byId.id;
    const byName = projects.filter((p) => p.name === wanted);
    if (byName.length === 1) return byName[0]!.id;
    if (byName.length > 1)
      throw new CliError(`${byName.length} projects are named "${wanted}": pass the id instead`, EXIT.cancelledOrUsage);
    throw new CliError(`no project "${wanted}" that you can see (svc projects lists them)`, EXIT.failed, 'not_found');
  }
}
