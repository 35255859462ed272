import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientFor, conversation, firstToolCall } from './helpers';

const packageDir = join(__dirname, '..');
const children: ChildProcess[] = [];

/** Runs src/cli.ts through tsx's loader as its own process, like `pnpm --filter @svc/scripted-llm dev`. */
function runCli(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function waitForListening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)\n/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`cli exited with ${code} before listening: ${output}`)));
  });
}

function waitForExit(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('scripted-llm CLI', () => {
  it('serves the demo script from a separate process and stops cleanly on SIGTERM', async () => {
    const child = runCli(['--script', 'scripts/demo.yaml', '--port', '0']);
    const url = await waitForListening(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const completion = await clientFor({ url }).chat.completions.create({
      model: 'scripted-demo',
      messages: conversation('svc:planning', 'Build a static hello-world web page and serve it'),
    });
    expect(firstToolCall(completion).name).toBe('kb_search');
    const requests = (await (await fetch(`${url}/_script/requests`)).json()) as { requests: { rule: string }[] };
    expect(requests.requests.map((record) => record.rule)).toEqual(['planning']);
    const exited = waitForExit(child);
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  }, 20_000);

  it('exits 1 naming the file when the script cannot be read', async () => {
    const { code, stderr } = await waitForExit(runCli(['--script', 'scripts/no-such-script.yaml', '--port', '0']));
    expect(code).toBe(1);
    expect(stderr).toContain('cannot read script file scripts/no-such-script.yaml');
  }, 20_000);

  it('exits 1 listing every problem of an invalid script', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'scripted-llm-')), 'bad.yaml');
    await writeFile(path, 'rules:\n  - select: sideways\n    responses:\n      - content: "{{nope}}"\n');
    const { code, stderr } = await waitForExit(runCli(['--script', path, '--port', '0']));
    expect(code).toBe(1);
    expect(stderr).toContain('rules.0.select');
    expect(stderr).toContain('unknown template variable {{nope}}');
  }, 20_000);

  it('exits 1 with usage on a bad argument', async () => {
    const { code, stderr } = await waitForExit(runCli(['--port', 'eighty']));
    expect(code).toBe(1);
    expect(stderr).toContain('--port must be an integer');
    expect(stderr).toContain('Usage: scripted-llm');
  }, 20_000);
});
