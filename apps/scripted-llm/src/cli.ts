#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadScriptFile } from './load-script';
import type { ParsedScript } from './script';
import { startScriptedLlm } from './server';

const USAGE = `Usage: scripted-llm [--script <file.yaml|file.json>] [--port 4010] [--host 127.0.0.1] [--no-auth]

A scripted OpenAI-compatible chat-completions server. Prints "listening on <base url>" once ready.
  --script   rules to answer with (YAML or JSON); without it, load one later with PUT /_script
  --port     port to listen on, 0 for a free one (default 4010)
  --host     address to bind (default 127.0.0.1)
  --no-auth  accept requests without an Authorization header`;

class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface CliOptions {
  scriptPath: string | undefined;
  port: number;
  host: string;
  requireAuth: boolean;
}

function parseCli(argv: string[]): CliOptions | 'help' {
  try {
    return readOptions(argv);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function readOptions(argv: string[]): CliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      script: { type: 'string', short: 's' },
      port: { type: 'string', short: 'p', default: '4010' },
      host: { type: 'string', default: '127.0.0.1' },
      'no-auth': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  return { scriptPath: values.script, port, host: values.host, requireAuth: !values['no-auth'] };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  // `pnpm run dev -- --port 0` passes the separator through.
  const options = parseCli(args[0] === '--' ? args.slice(1) : args);
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const script: ParsedScript | undefined =
    options.scriptPath === undefined ? undefined : await loadScriptFile(options.scriptPath);
  const server = await startScriptedLlm({
    script,
    port: options.port,
    host: options.host,
    requireAuth: options.requireAuth,
  });
  process.stdout.write(`listening on ${server.url}\n`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`scripted-llm: ${message}\n`);
  if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
  process.exit(1);
});
