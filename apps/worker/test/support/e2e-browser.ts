import type { BrowserServerMessage } from '@svc/protocol';
import WebSocket from 'ws';
import { eventually } from '@svc/test-kit';

/** A browser page's live connection: `/svc/ws` with the session cookie and the server's own Origin. */
export class BrowserSocket {
  readonly messages: BrowserServerMessage[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => this.messages.push(JSON.parse(raw.toString()) as BrowserServerMessage));
  }

  static async open(baseUrl: string, cookie: string): Promise<BrowserSocket> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/svc/ws`, { headers: { cookie, origin: baseUrl } });
    const socket = new BrowserSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`browser socket refused: HTTP ${res.statusCode}`)),
      );
      ws.once('error', reject);
    });
    return socket;
  }

  /** Subscribes and waits for the server's `subscribed` answer. */
  async subscribe(workflowId: string, sinceSeq?: number): Promise<void> {
    this.ws.send(
      JSON.stringify({
        type: 'subscribe',
        workflow_id: workflowId,
        ...(sinceSeq === undefined ? {} : { since_seq: sinceSeq }),
      }),
    );
    await eventually(() => this.messages.some((m) => m.type === 'subscribed' && m.workflow_id === workflowId), {
      what: `subscribed to ${workflowId}`,
      detail: () => JSON.stringify(this.messages.slice(-3)),
    });
  }

  /** Events of one type for one workflow, in arrival order. */
  events<T extends BrowserServerMessage['type']>(
    type: T,
    workflowId: string,
  ): Extract<BrowserServerMessage, { type: T }>[] {
    return this.messages.filter(
      (m): m is Extract<BrowserServerMessage, { type: T }> =>
        m.type === type && 'workflow_id' in m && m.workflow_id === workflowId,
    );
  }

  close(): void {
    this.ws.close();
  }
}
