import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { scriptSchema, type ParsedScript, type Script } from './script';

/** A script that cannot be read or does not follow the format; `issues` lists every problem. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
  constructor(
    message: string,
    readonly issues: string[],
  ) {
    super(issues.length > 0 ? `${message}:\n  - ${issues.join('\n  - ')}` : message);
  }
}

export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : '(script)';
    return `${where}: ${issue.message}`;
  });
}

/** Validates a script object and applies defaults. */
export function parseScript(script: unknown, source = 'script'): ParsedScript {
  const result = scriptSchema.safeParse(script ?? {});
  if (!result.success) throw new ScriptError(`invalid ${source}`, describeIssues(result.error));
  return result.data;
}

/** Parses YAML or JSON text (YAML is a superset of JSON) into a validated script. */
export function parseScriptText(text: string, source = 'script'): ParsedScript {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ScriptError(`${source} is not valid YAML or JSON`, [(error as Error).message]);
  }
  return parseScript(value, source);
}

export async function loadScriptFile(path: string): Promise<ParsedScript> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScriptError(`cannot read script file ${path}`, [(error as Error).message]);
  }
  return parseScriptText(text, `script file ${path}`);
}

export type { Script, ParsedScript };
