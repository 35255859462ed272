import { ApiError } from '@svc/client';
import { AbortedError } from '../util/aborted';
import { commandOutputBudget, keepWholeText, WholeOutput, type WholeOutputStore } from './whole-output';

const START = new Date('2026-11-28T10:00:00.000Z');

/** A store whose uploads `answer` decides; what was uploaded and what was warned about are kept. */
function store(answer: () => Promise<void> = async () => {}) {
  const uploads: { workflowId: string; name: string; content: string }[] = [];
  const warnings: string[] = [];
  const target: WholeOutputStore = {
    workflowId: 'wf-1',
    api: {
      uploadCommandOutput: async (workflowId, name, content) => {
        uploads.push({ workflowId, name, content: Buffer.from(content).toString() });
        await answer();
      },
    },
    logger: {
      warn: (_fields: unknown, message: string) => warnings.push(message),
    } as unknown as WholeOutputStore['logger'],
  };
  return { target, uploads, warnings };
}

describe('a command’s whole output (decisions 0073, 0080, 0081)', () => {
  it('keeps every chunk, uploads it under a fresh name and times the lines of the entry text', async () => {
    const whole = new WholeOutput(START, 1_000_000, 64);
    whole.push(Buffer.from('one\ntwo\n'));
    whole.push(Buffer.from('three\n'));
    const { target, uploads } = store();
    const kept = await whole.keep(target);
    expect(uploads).toEqual([{ workflowId: 'wf-1', name: kept!.name, content: 'one\ntwo\nthree\n' }]);
    expect(kept).toEqual({ name: expect.stringMatching(/^[0-9a-f-]{36}$/), total_bytes: 14 });
    // any status line: the asker of a remote command puts its own there
    expect(whole.lineTimes('[status]\none\ntwo\nthree\n')?.lines[0]).toEqual([0, null]);
  });

  it('counts an upload the server already has (a retried job-token upload: 409) as stored', async () => {
    const { target, warnings } = store(() => Promise.reject(new ApiError(409, 'conflict', 'exists')));
    expect(await keepWholeText(target, 'result', 1024)).toMatchObject({ total_bytes: 6 });
    expect(warnings).toEqual([]);
  });

  it('goes on without it when the server refuses, and stops with the run', async () => {
    const refused = store(() => Promise.reject(new ApiError(401, 'unauthenticated', 'expired')));
    expect(await keepWholeText(refused.target, 'result', 1024)).toBeUndefined();
    expect(refused.warnings).toEqual(['could not store a command output']);
    const aborted = store(() => Promise.reject(new AbortedError()));
    await expect(keepWholeText(aborted.target, 'result', 1024)).rejects.toBeInstanceOf(AbortedError);
  });

  it('keeps head and tail of a text past the bound', async () => {
    const { target, uploads } = store();
    const text = Array.from({ length: 1_000 }, (_, n) => `line ${n}\n`).join('');
    expect(await keepWholeText(target, text, 2_048)).toMatchObject({ total_bytes: Buffer.byteLength(text) });
    const [head, tail] = uploads[0]!.content.split(/\n…\[\d+ bytes of output omitted\]…\n/);
    expect(text.startsWith(head!)).toBe(true);
    expect(text.endsWith(tail!)).toBe(true);
  });

  it('leaves room for the status line and the cut marker in the budget', () => {
    expect(commandOutputBudget(16_384)).toBe(16_128);
    expect(commandOutputBudget(300)).toBe(256);
  });
});
