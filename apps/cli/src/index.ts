export { main, buildProgram } from './program';
export { EXIT, CliError } from './errors';
export { followWorkflow, exitCodeOf, type FollowOptions } from './follow';
export { readCliEnv, type CliEnv } from './env';
export type { CliIo } from './context';
export { CLI_VERSION } from './version';
export { EventPrinter } from './render';
