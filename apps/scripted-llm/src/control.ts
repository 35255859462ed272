import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson } from './http-io';
import { parseScriptText, ScriptError } from './load-script';
import { HttpError, openAiError } from './openai-error';
import type { ScriptedLlmControls } from './server';

const MAX_SCRIPT_BYTES = 8 * 1024 * 1024;

/**
 * Test-control endpoints, so a server in another process can be driven:
 * `GET /_script/requests`, `POST /_script/reset`, `GET /_script`, `PUT /_script` (YAML or JSON body).
 * They need no API key: the server is meant for loopback use.
 */
export async function handleControl(
  controls: ScriptedLlmControls,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<void> {
  const action = `${request.method ?? ''} ${path}`;
  try {
    switch (action) {
      case 'GET /_script/requests':
        return sendJson(response, 200, { requests: controls.requests });
      case 'POST /_script/reset':
        controls.reset();
        return sendJson(response, 200, { ok: true });
      case 'GET /_script':
        return sendJson(response, 200, controls.script);
      case 'PUT /_script': {
        const script = parseScriptText(await readBody(request, MAX_SCRIPT_BYTES), 'script in request body');
        controls.setScript(script);
        return sendJson(response, 200, { ok: true, rules: script.rules.length });
      }
      default:
        throw new HttpError(404, `no control route ${action}`);
    }
  } catch (error) {
    if (error instanceof ScriptError) {
      return sendJson(response, 400, {
        ...openAiError(400, error.message, { code: 'invalid_script' }),
        issues: error.issues,
      });
    }
    const httpError = error instanceof HttpError ? error : new HttpError(500, (error as Error).message);
    sendJson(response, httpError.status, httpError.body);
  }
}
