/**
 * The only module that reads process.env. Everything else receives these values as arguments.
 */
export interface WorkerEnv {
  /** SVC_WORKER_CONFIG: config file path when `--config` is not given. */
  configPath: string | undefined;
  /** A frozen copy of the environment: looked up for `token_env` / `api_key_env`, and the base
   *  environment of the commands the executor runs. */
  vars: Readonly<Record<string, string | undefined>>;
}

export function readWorkerEnv(): WorkerEnv {
  const vars = Object.freeze({ ...process.env });
  return { configPath: vars.SVC_WORKER_CONFIG || undefined, vars };
}

/** The PATH the worker's own git runs with (decision 0046): the worker's, never a run's. */
export function workerPath(): string {
  return process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
}
