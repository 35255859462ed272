/** The slice of pino's logger the worker uses; tests pass `silentLogger` or a recording one. */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
}

const noop = (): void => undefined;
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
