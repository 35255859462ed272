import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startApiProcess, type ApiProcess } from '@svc/test-kit';
import { startUpload } from '../../support/raw-http';
import { startBackend, type BackendUnderTest } from './backends';

const MiB = 1024 * 1024;
/** Far more than the memory the server may grow by: it cannot hold even half of it. */
const TRANSFER_BYTES = 256 * MiB;
const MAX_GROWTH_BYTES = 128 * MiB;

/** Resident memory of a process, from /proc: now (`VmRSS`) or its peak so far (`VmHWM`). */
function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

// The built server as its own process (its memory is what is measured), storing in a real s3rver.
describe('a streamed upload and download through the S3 backend', () => {
  let backend: BackendUnderTest;
  let api: ApiProcess;
  let alice: string;
  let storage: string;

  beforeAll(async () => {
    backend = await startBackend('s3');
    api = await startApiProcess({ env: { ...backend.env, LOG_LEVEL: 'warn' } });
    alice = await api.login('alice');
    const res = await api.request('/svc/api/projects', { as: alice, method: 'POST', json: { name: 'big' } });
    storage = `/svc/api/projects/${((await res.json()) as { id: string }).id}/storage`;
  });
  afterAll(async () => {
    await api?.close();
    await backend?.close();
  });

  it(`moves ${TRANSFER_BYTES / MiB} MiB both ways with the server's peak memory bounded`, async () => {
    const pid = api.process.pid;
    // One small upload first, so the baseline includes what any first upload loads (SDK, sockets).
    const warmup = startUpload(api.url, `${storage}/warmup.bin`, { as: alice });
    await warmup.write(randomBytes(MiB));
    warmup.end();
    expect((await warmup.response).status).toBe(201);
    const before = memoryOf(pid, 'VmHWM');
    const block = randomBytes(MiB);
    const sent = createHash('sha256');
    const upload = startUpload(api.url, `${storage}/big.bin`, { as: alice }); // chunked: no length known ahead
    for (let at = 0; at < TRANSFER_BYTES; at += MiB) {
      const chunk = Buffer.from(block);
      chunk.writeUInt32BE(at / MiB); // every MiB differs, so a misplaced part shows in the hash
      sent.update(chunk);
      await upload.write(chunk);
    }
    upload.end();
    const answer = await upload.response;
    expect([answer.status, answer.json()]).toEqual([201, { path: 'big.bin', size: TRANSFER_BYTES }]);
    expect(memoryOf(pid, 'VmHWM') - before).toBeLessThan(MAX_GROWTH_BYTES);

    const download = await api.request(`${storage}/big.bin`, { as: alice });
    expect(download.status).toBe(200);
    const received = createHash('sha256');
    let size = 0;
    for await (const chunk of download.body!) {
      received.update(chunk);
      size += chunk.length;
    }
    expect([size, received.digest('hex')]).toEqual([TRANSFER_BYTES, sent.digest('hex')]);
    expect(memoryOf(pid, 'VmHWM') - before).toBeLessThan(MAX_GROWTH_BYTES);
  }, 300_000);
});
