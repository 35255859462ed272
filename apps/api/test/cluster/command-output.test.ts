import type { Message } from '@svc/test-kit';
import { CLUSTER_TIMEOUT_MS, startCluster, startedOn, subscribeBrowser, type Cluster } from './cluster';

/** Live command output of a worker on replica A reaches a browser on replica B (cluster bus, in pieces). */
describe('command output across two API replicas', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster();
  }, CLUSTER_TIMEOUT_MS);

  afterAll(async () => cluster?.close(), CLUSTER_TIMEOUT_MS);

  it(
    'relays started, output (a 16 KiB chunk in NOTIFY-sized pieces) and finished to a browser on the other replica',
    async () => {
      const { a, b } = cluster;
      const { worker, id } = await startedOn(cluster, a, 'streamer-a');
      const onB = await subscribeBrowser(b, cluster.alice, id);
      const onA = await subscribeBrowser(a, cluster.alice, id);
      try {
        // Escapes and multi-byte characters make the JSON far larger than the chunk's characters.
        const chunk = 'é"\n\u{1F600}x\t'.repeat((16 * 1024) / 16) + 'end';
        expect(Buffer.byteLength(chunk)).toBeLessThanOrEqual(16 * 1024);
        const routing = { type: 'command_output', workflow_id: id, call_id: 'run-1' };
        worker.send({
          ...routing,
          event: 'started',
          step_index: 0,
          command: 'make',
          started_at: new Date().toISOString(),
        });
        worker.send({ ...routing, event: 'output', stream: 'stdout', offset: 100, chunk });
        worker.send({ ...routing, event: 'finished', exit_code: 2, duration_ms: 9 });

        const finished = (m: Message) => m.type === 'command_output' && m.data.event === 'finished';
        await onB.inbox.next(finished);
        await onA.inbox.next(finished);
        const seen = (messages: Message[]) => messages.filter((m) => m.type === 'command_output').map((m) => m.data);
        const fromB = seen(onB.inbox.messages);
        const fromA = seen(onA.inbox.messages);
        // The replica holding the worker relays the chunk whole; the other gets it in pieces, in order.
        expect(fromA.map((d: Message) => d.event)).toEqual(['started', 'output', 'finished']);
        expect(fromB[0]).toMatchObject({ call_id: 'run-1', event: 'started', command: 'make' });
        expect(fromB.at(-1)).toEqual({ call_id: 'run-1', event: 'finished', exit_code: 2, duration_ms: 9 });
        const pieces = fromB.filter((d: Message) => d.event === 'output');
        expect(pieces.length).toBeGreaterThan(1);
        expect(pieces.map((d: Message) => d.chunk).join('')).toBe(chunk);
        let offset = 100;
        for (const piece of pieces) {
          expect(piece.offset).toBe(offset);
          offset += Buffer.byteLength(piece.chunk);
        }
        // Nothing of it was stored: no event took a seq.
        expect(onB.inbox.messages.filter((m) => m.type === 'command_output' && 'seq' in m)).toEqual([]);
      } finally {
        onA.close();
        onB.close();
      }
    },
    CLUSTER_TIMEOUT_MS,
  );
});
