import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { eventually, snapshot, type TestWorker } from '@svc/test-kit';
import type { UpdateBody } from '@svc/protocol';
import { expectJson, type TestServer } from '../support/server';

/** The CONTRACT-V2 fields of a workflow that the run list shows. */
export interface RunRecord {
  id: string;
  number: number;
  status: string;
  requirement: string;
  title: string;
  rerun_of: string | null;
  started_at: string | null;
  finished_at: string | null;
}

/** Starts, steers and reads runs of one project through the real REST API and a real worker socket. */
export class RunFixtures {
  private readonly seqs = new Map<string, number>();

  constructor(
    private readonly server: TestServer,
    private readonly worker: TestWorker,
    private readonly cookie: string,
    readonly projectId: string,
  ) {}

  /** Creates a run as the user and waits until the worker was given it. */
  async create(requirement: string): Promise<RunRecord> {
    // a worker silent for a few heartbeat periods counts as offline, and a test may have been busy for that long
    this.worker.send({ type: 'heartbeat' });
    const run = await expectJson<RunRecord>(
      await this.server.request(`/svc/api/projects/${this.projectId}/workflows`, {
        method: 'POST',
        as: this.cookie,
        json: { requirement },
      }),
      201,
    );
    await this.worker.dispatch(run.id, 'start');
    return run;
  }

  /** Sends the worker's next update for the run and waits until the server stored it. */
  async store(runId: string, body: UpdateBody): Promise<void> {
    const seq = (this.seqs.get(runId) ?? 0) + 1;
    this.seqs.set(runId, seq);
    const answer = await this.worker.store(runId, seq, body);
    if (answer.type !== 'ack') throw new Error(`update ${seq} of ${runId} refused: ${JSON.stringify(answer)}`);
  }

  /** Running with `done` of `total` steps done (the list's progress comes from this snapshot). */
  async running(runId: string, done: number, total: number): Promise<void> {
    await this.store(runId, { kind: 'status', data: { status: 'running' } });
    const steps = Array.from({ length: total }, (_, i) => (i < done ? 'done' : i === done ? 'running' : 'pending'));
    await this.store(runId, done < total ? snapshot('executing', done, steps) : snapshot('completed', null, steps));
  }

  async waiting(runId: string, question: string): Promise<void> {
    await this.store(runId, { kind: 'status', data: { status: 'waiting_user', question } });
  }

  async title(runId: string, title: string): Promise<void> {
    await this.store(runId, { kind: 'title', data: { title } });
  }

  async finish(runId: string, status: 'completed' | 'failed', error?: string): Promise<void> {
    await this.store(runId, { kind: 'status', data: { status, ...(error ? { error } : {}) } });
  }

  async cancel(runId: string): Promise<void> {
    const res = await this.server.request(`/svc/api/workflows/${runId}/cancel`, { method: 'POST', as: this.cookie });
    if (res.status !== 200) throw new Error(`cancel: HTTP ${res.status} ${await res.text()}`);
  }

  async get(runId: string): Promise<RunRecord> {
    return expectJson<RunRecord>(await this.server.request(`/svc/api/workflows/${runId}`, { as: this.cookie }), 200);
  }

  /** Every run of the project whose title or requirement contains `q`. */
  async search(q: string): Promise<RunRecord[]> {
    const page = await expectJson<{ items: RunRecord[] }>(
      await this.server.request(`/svc/api/projects/${this.projectId}/workflows?q=${encodeURIComponent(q)}`, {
        as: this.cookie,
      }),
      200,
    );
    return page.items;
  }
}

/** The data-workflow-id of every run the list shows, in order. */
export async function listedRunIds(page: Page): Promise<string[]> {
  return page
    .locator('.workflow-list .workflow-item')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-workflow-id') ?? ''));
}

/** Waits until the list shows exactly `ids` (in order). */
export async function expectListed(page: Page, ids: string[]): Promise<void> {
  await eventually(async () => expect(await listedRunIds(page)).toEqual(ids));
}

/**
 * A local copy of a template repository as the server keeps it (a clone with `origin/<branch>` refs),
 * one branch per entry whose README's first line is the template's description. The server is given
 * an unreachable repository URL, so it serves this copy as it is.
 */
export function templateClone(root: string, branches: Record<string, string>): string {
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Templates',
    GIT_AUTHOR_EMAIL: 'templates@example.test',
    GIT_COMMITTER_NAME: 'Templates',
    GIT_COMMITTER_EMAIL: 'templates@example.test',
  };
  const source = join(root, 'source');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: 'pipe' });
  mkdirSync(source, { recursive: true });
  git(source, 'init', '--quiet', '--initial-branch=main');
  for (const [branch, readme] of Object.entries(branches)) {
    git(source, 'checkout', '--quiet', '--orphan', branch);
    git(source, 'rm', '-rf', '--quiet', '--ignore-unmatch', '.');
    writeFileSync(join(source, 'README.md'), readme);
    git(source, 'add', 'README.md');
    git(source, 'commit', '--quiet', '-m', `template ${branch}`);
  }
  const local = join(root, 'local', 'templates');
  mkdirSync(join(root, 'local'), { recursive: true });
  git(root, 'clone', '--quiet', '--no-checkout', source, local);
  return local;
}
