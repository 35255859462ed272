// The simulated workers and browsers of bench/ws/ws-load.mjs; they only speak the wire protocol, so
// the same code drives svc and the bare server.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../lib/server-process.mjs';

const require = createRequire(join(repoRoot, 'apps/api/package.json'));
const WebSocket = require('ws');
/** Unacknowledged updates per worker: the real worker's default (its config key `update_window`). */
export const DEFAULT_WINDOW = require('@svc/protocol').DEFAULT_UPDATE_WINDOW;
const OUTPUT = 'x'.repeat(200);

export function openSocket(url, headers) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

function nextMessage(ws, match, timeoutMs = 15_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out waiting for a message')), timeoutMs);
    const onMessage = (raw) => {
      const message = JSON.parse(raw.toString());
      if (!match(message)) return;
      clearTimeout(timer);
      ws.off('message', onMessage);
      resolve(message);
    };
    ws.on('message', onMessage);
  });
}

/**
 * A worker that registers and takes the one workflow it is given (`expectDispatch`: svc hands it out;
 * the bare server has no dispatch, so the bench names the workflow itself).
 */
export async function connectWorker(baseUrl, token, name, workflowId) {
  const ws = await openSocket(
    `${baseUrl.replace(/^http/, 'ws')}/svc/worker/ws`,
    token ? { authorization: `Bearer ${token}` } : {},
  );
  const registered = nextMessage(ws, (m) => m.type === 'registered');
  const dispatched = workflowId
    ? null
    : nextMessage(ws, (m) => m.type === 'dispatch' && (m.action === 'start' || m.action === 'resume'));
  ws.send(
    JSON.stringify({
      type: 'register',
      protocol_version: 1,
      name,
      labels: [],
      capacity: 1,
      version: 'bench',
      hostname: 'bench',
    }),
  );
  await registered;
  const dispatch = dispatched ? await dispatched : { workflow_id: workflowId, last_seq: 0 };
  return { ws, workflowId: dispatch.workflow_id, nextSeq: dispatch.last_seq + 1 };
}

export async function connectBrowser(baseUrl, headers, workflowId) {
  const ws = await openSocket(`${baseUrl.replace(/^http/, 'ws')}/svc/ws`, headers);
  const subscribed = nextMessage(ws, (m) => m.type === 'subscribed');
  ws.send(JSON.stringify({ type: 'subscribe', workflow_id: workflowId }));
  await subscribed;
  return ws;
}

/**
 * Streams updates from every worker with `window` unacknowledged updates in flight (as the real
 * worker's outbox does), and times each `workflow_update` from the worker's send to a browser's
 * receipt (same process, same clock). Counts only the measured window; `sent` and `payloadBytes`
 * (the JSON of every update's `data`) cover the whole run, to relate what is stored to it.
 */
export async function stream(workers, browsers, { warmupMs, measureMs, window = DEFAULT_WINDOW, rate, onMeasure }) {
  const state = {
    measuring: false,
    stopped: false,
    acked: 0,
    received: 0,
    latencies: [],
    errors: 0,
    sent: 0,
    payloadBytes: 0,
  };
  for (const browser of browsers) {
    browser.on('message', (raw) => {
      if (!state.measuring) return;
      const text = raw.toString();
      if (!text.startsWith('{"type":"workflow_update"')) return;
      const at = text.indexOf('"t":');
      state.received++;
      state.latencies.push(performance.now() - Number.parseFloat(text.slice(at + 4, at + 32)));
    });
  }
  // --rate: updates per second across all workers, paced by an allowance that grows with time.
  const pacers = [];
  for (const worker of workers) {
    let inFlight = 0;
    let allowance = rate ? 1 : Infinity;
    let last = performance.now();
    const send = () => {
      if (rate) {
        const now = performance.now();
        allowance = Math.min(allowance + ((now - last) * rate) / workers.length / 1000, window);
        last = now;
      }
      while (!state.stopped && inFlight < window && allowance >= 1) {
        allowance--;
        inFlight++;
        const seq = worker.nextSeq++;
        const data = {
          step_index: 0,
          tool_name: 'bench',
          tool_input: { t: performance.now(), i: seq },
          output: OUTPUT,
          is_error: false,
        };
        const text = JSON.stringify(data);
        state.sent++;
        state.payloadBytes += Buffer.byteLength(text);
        worker.ws.send(
          `{"type":"update","workflow_id":${JSON.stringify(worker.workflowId)},"seq":${seq},"kind":"log_entry","data":${text}}`,
        );
      }
    };
    worker.ws.on('message', (raw) => {
      const message = JSON.parse(raw.toString());
      if (message.type === 'ack') {
        inFlight--;
        if (state.measuring) state.acked++;
        send();
      } else if (message.type === 'error') {
        state.errors++;
      }
    });
    pacers.push(send);
    send();
  }
  const pacing = rate ? setInterval(() => pacers.forEach((send) => send()), 5) : undefined;
  await new Promise((r) => setTimeout(r, warmupMs));
  state.measuring = true;
  const started = performance.now();
  // onMeasure samples the server: as the window opens, every 200 ms, and as it closes.
  onMeasure?.();
  const sampling = onMeasure ? setInterval(onMeasure, 200) : undefined;
  await new Promise((r) => setTimeout(r, measureMs));
  clearInterval(sampling);
  onMeasure?.();
  state.measuring = false;
  const seconds = (performance.now() - started) / 1000;
  state.stopped = true;
  clearInterval(pacing);
  await new Promise((r) => setTimeout(r, 300)); // let the last acks arrive before sockets close
  return { seconds, ...state };
}
