import { z } from 'zod';
import { SERVER_SETUP_MS, startToolEnv, type ToolEnv } from '../../test/support/tool-env';
import { ApiError } from '../api/server-api';
import { AbortedError } from '../util/aborted';
import { WorkspacePathError } from '../workspace/paths';
import { invokeTool } from './invoke';
import { defineTool, ok } from './tool';

let env: ToolEnv;
beforeAll(async () => {
  env = await startToolEnv();
}, SERVER_SETUP_MS);
afterAll(() => env?.close());

const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  parameters: z.object({ text: z.string(), times: z.number().int().default(1) }).strict(),
  async run({ text, times }) {
    return ok(text.repeat(times));
  },
});

const throwing = (err: unknown) =>
  defineTool({ name: 'boom', description: 'Fails.', parameters: z.object({}), run: async () => Promise.reject(err) });

describe('invokeTool', () => {
  it('runs a tool with validated arguments and defaults applied', async () => {
    const invocation = await invokeTool(echo, '{"text":"ab","times":2}', env.context());
    expect(invocation).toEqual({ input: { text: 'ab', times: 2 }, result: { output: 'abab', isError: false } });
    expect((await invokeTool(echo, '{"text":"x"}', env.context())).result.output).toBe('x');
  });

  it('turns malformed arguments into errors the LLM can read', async () => {
    expect((await invokeTool(echo, '{"text":', env.context())).result.output).toMatch(
      /^arguments are not valid JSON: /,
    );
    expect((await invokeTool(echo, '[1]', env.context())).result.output).toBe('arguments must be a JSON object');
    expect((await invokeTool(echo, '{"text":1,"extra":true}', env.context())).result.output).toBe(
      'invalid arguments for echo: text: Invalid input: expected string, received number; (arguments): Unrecognized key: "extra"',
    );
  });

  it('reports tool failures as error results, naming unexpected ones', async () => {
    expect(
      (
        await invokeTool(
          throwing(new ApiError(503, 'unavailable', 'down', { request: 'GET /svc/api/kb' })),
          '{}',
          env.context(),
        )
      ).result,
    ).toEqual({
      output: 'boom failed: GET /svc/api/kb: down',
      isError: true,
    });
    expect((await invokeTool(throwing(new TypeError('x is undefined')), '{}', env.context())).result.output).toBe(
      'boom failed: unexpected error: x is undefined',
    );
  });

  it('logs arguments that are not a JSON object as raw, and takes empty arguments as {}', async () => {
    expect((await invokeTool(echo, '[1]', env.context())).input).toEqual({ _raw: '[1]' });
    expect((await invokeTool(echo, 'nul', env.context())).input).toEqual({ _raw: 'nul' });
    expect((await invokeTool(throwing(new Error('no')), '  ', env.context())).input).toEqual({});
  });

  it('tells expected failures by their message only', async () => {
    const failure = async (err: unknown) => (await invokeTool(throwing(err), '{}', env.context())).result.output;
    expect(await failure(new ApiError(404, 'not_found', 'no such file'))).toBe('boom failed: no such file');
    expect(await failure(new WorkspacePathError('path escapes the workspace'))).toBe(
      'boom failed: path escapes the workspace',
    );
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: 'ENOENT' });
    expect(await failure(enoent)).toBe("boom failed: ENOENT: no such file or directory, open 'x'");
    expect(await failure('a string')).toBe('boom failed: unexpected error: a string');
  });

  it('turns any failure of a cancelled call into a cancel', async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx = { ...env.context(), signal: controller.signal };
    await expect(invokeTool(throwing(new Error('socket closed')), '{}', ctx)).rejects.toBeInstanceOf(AbortedError);
  });

  it('lets a cancel through', async () => {
    await expect(invokeTool(throwing(new AbortedError()), '{}', env.context())).rejects.toBeInstanceOf(AbortedError);
  });
});
