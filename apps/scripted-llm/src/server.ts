import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleChat, type ChatContext, type ChatOutcome, type ScriptedHandler } from './chat';
import { handleControl } from './control';
import { ScriptEngine } from './engine';
import { bearerToken, sendJson } from './http-io';
import { parseScript } from './load-script';
import { HttpError } from './openai-error';
import type { ParsedScript, Script } from './script';

export interface ScriptedLlmOptions {
  /** Rules to answer with; validated (throws ScriptError). Default: no rules. */
  script?: Script;
  /** Consulted before the rules; see ScriptedHandler. */
  handler?: ScriptedHandler;
  /** Demand `Authorization: Bearer <non-empty>` on the model API, like real providers. Default true. */
  requireAuth?: boolean;
  /** Largest accepted request body. Default 32 MiB. */
  maxBodyBytes?: number;
}

export interface ListenOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
}

/** One model API request as recorded (control endpoints and /health are not recorded). */
export interface RecordedRequest extends ChatOutcome {
  seq: number;
  received_at: string;
  method: string;
  path: string;
  duration_ms: number;
}

export interface ScriptedLlmControls {
  /** Live list of recorded requests, oldest first; emptied by reset(). */
  readonly requests: readonly RecordedRequest[];
  readonly script: ParsedScript;
  /** Validates and loads a script (throws ScriptError); rule counters restart, records are kept. */
  setScript(script: Script): void;
  /** Forgets recorded requests and restarts every rule counter. */
  reset(): void;
}

export interface ScriptedLlmServer extends ScriptedLlmControls {
  readonly httpServer: Server;
  listen(options?: ListenOptions): Promise<RunningScriptedLlm>;
}

export interface RunningScriptedLlm extends ScriptedLlmControls {
  readonly httpServer: Server;
  /** Base URL for the openai client, ending in `/v1`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** `/v1/x/` and `/x` name the same route. */
function routePath(rawUrl: string | undefined): string {
  const path = new URL(rawUrl ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
  return path === '/v1' ? '/' : path.replace(/^\/v1\//, '/');
}

/** Builds the server without listening, so callers choose when and where. */
export function createScriptedLlmServer(options: ScriptedLlmOptions = {}): ScriptedLlmServer {
  const engine = new ScriptEngine(parseScript(options.script ?? {}));
  const records: RecordedRequest[] = [];
  let requestCount = 0;
  let completionCount = 0;

  const controls: ScriptedLlmControls = {
    get requests() {
      return records;
    },
    get script() {
      return engine.current;
    },
    setScript(script) {
      engine.load(parseScript(script));
    },
    reset() {
      records.length = 0;
      requestCount = 0;
      engine.reset();
    },
  };

  const chatContext: ChatContext = {
    engine,
    handler: options.handler,
    requireAuth: options.requireAuth ?? true,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    nextRequestNumber: () => (requestCount += 1),
    nextCompletionNumber: () => (completionCount += 1),
  };

  async function modelApi(request: IncomingMessage, response: ServerResponse, path: string): Promise<ChatOutcome> {
    const base: ChatOutcome = {
      body: null,
      stream: false,
      status: 0,
      rule: null,
      response_index: null,
      response: null,
      usage: null,
    };
    if (path === '/chat/completions') {
      if (request.method !== 'POST') throw new HttpError(405, `use POST for ${path}`);
      return handleChat(chatContext, request, response);
    }
    if (path === '/models') {
      if (request.method !== 'GET') throw new HttpError(405, `use GET for ${path}`);
      if (chatContext.requireAuth && bearerToken(request) === null)
        throw new HttpError(401, "You didn't provide an API key.", 'missing_api_key');
      const list = {
        object: 'list',
        data: engine.current.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted-llm' })),
      };
      sendJson(response, 200, list);
      return { ...base, status: 200, response: list };
    }
    throw new HttpError(404, `no route ${request.method ?? ''} ${path}`);
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = routePath(request.url);
    if (path === '/health') return sendJson(response, 200, { status: 'ok' });
    if (path === '/_script' || path.startsWith('/_script/')) return handleControl(controls, request, response, path);
    const started = Date.now();
    const received = new Date(started).toISOString();
    let outcome: ChatOutcome;
    try {
      outcome = await modelApi(request, response, path);
    } catch (error) {
      const httpError = error instanceof HttpError ? error : new HttpError(500, (error as Error).message);
      sendJson(response, httpError.status, httpError.body);
      outcome = {
        body: null,
        stream: false,
        status: httpError.status,
        rule: null,
        response_index: null,
        response: httpError.body,
        usage: null,
      };
    }
    const seq = (records[records.length - 1]?.seq ?? 0) + 1;
    records.push({
      seq,
      received_at: received,
      method: request.method ?? '',
      path,
      duration_ms: Date.now() - started,
      ...outcome,
    });
  }

  const httpServer = createServer((request, response) => {
    route(request, response).catch((error: unknown) => sendJson(response, 500, new HttpError(500, String(error)).body));
  });

  return {
    ...bindControls(controls),
    httpServer,
    listen: (listenOptions = {}) => listen(httpServer, controls, listenOptions),
  };
}

/** Getters survive object spread only when re-declared, so wrap them explicitly. */
function bindControls(controls: ScriptedLlmControls): ScriptedLlmControls {
  return {
    get requests() {
      return controls.requests;
    },
    get script() {
      return controls.script;
    },
    setScript: (script) => controls.setScript(script),
    reset: () => controls.reset(),
  };
}

function listen(
  httpServer: Server,
  controls: ScriptedLlmControls,
  options: ListenOptions,
): Promise<RunningScriptedLlm> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => {
      httpServer.off('error', reject);
      const { port } = httpServer.address() as AddressInfo;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        ...bindControls(controls),
        httpServer,
        url: `http://${urlHost}:${port}/v1`,
        port,
        host,
        close: () => closeServer(httpServer),
      });
    });
  });
}

function closeServer(httpServer: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    httpServer.close((error) => (error ? reject(error) : resolve()));
    // Keep-alive sockets from HTTP clients would otherwise hold close() open.
    httpServer.closeAllConnections();
  });
}

/** Creates the server and listens: `await startScriptedLlm({ script })` then point openai at `.url`. */
export function startScriptedLlm(options: ScriptedLlmOptions & ListenOptions = {}): Promise<RunningScriptedLlm> {
  return createScriptedLlmServer(options).listen(options);
}
