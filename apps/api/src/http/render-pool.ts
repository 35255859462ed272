import { Worker } from 'node:worker_threads';
import { DomainError } from '../domain/errors';

/**
 * The render thread's code. Inline (eval) so the same pool runs from the built server and from the
 * sources under test; markdown-it is loaded by the path the main thread resolved.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const MarkdownIt = require(workerData.markdownIt);
// html: false escapes raw HTML in the source instead of passing it through.
const markdown = new MarkdownIt({ html: false, linkify: true });
const decoder = new TextDecoder();
parentPort.on('message', (source) => {
  try {
    parentPort.postMessage({ html: markdown.render(decoder.decode(source)) });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

/** A render that runs away (memory) kills its thread, never the server. */
const THREAD_HEAP_MB = 256;
/** An idle thread is ended after this, so a quiet server holds no render threads. */
const IDLE_THREAD_MS = 30_000;

export interface RenderPoolOptions {
  /** render threads at most */
  threads: number;
  /** renders that may wait for a thread; past it `render` is refused with 503 */
  queue: number;
}

interface Task {
  source: Uint8Array;
  resolve(html: string): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  task: Task | null;
  idleTimer: NodeJS.Timeout | null;
}

/**
 * Markdown rendering off the event loop: a bounded set of worker threads and a bounded queue, so a
 * large or slow document delays only the requests that render, and a flood of them is answered 503.
 */
export class RenderPool {
  private readonly threads = new Set<Thread>();
  private readonly waiting: Task[] = [];
  private readonly markdownIt = require.resolve('markdown-it');

  constructor(private readonly options: RenderPoolOptions) {}

  /** Renders on a thread (UTF-8 bytes in, HTML out); throws `unavailable` when the queue is full. */
  render(source: Uint8Array): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const task: Task = { source, resolve, reject };
      const idle = [...this.threads].find((thread) => thread.task === null);
      if (idle) return this.run(idle, task);
      if (this.threads.size < this.options.threads) return this.run(this.spawn(), task);
      if (this.waiting.length >= this.options.queue)
        return reject(
          new DomainError('unavailable', 'too many documents are being rendered; try again shortly', {
            'Retry-After': '2',
          }),
        );
      this.waiting.push(task);
    });
  }

  /** Renders running and waiting (for tests and metrics). */
  get pending(): { running: number; waiting: number } {
    return { running: [...this.threads].filter((t) => t.task !== null).length, waiting: this.waiting.length };
  }

  private spawn(): Thread {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { markdownIt: this.markdownIt },
      resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    });
    const thread: Thread = { worker, task: null, idleTimer: null };
    this.threads.add(thread);
    worker.unref();
    worker.on('message', (reply: { html?: string; error?: string }) => {
      const task = thread.task;
      thread.task = null;
      if (reply.html !== undefined) task?.resolve(reply.html);
      else task?.reject(new Error(`markdown render failed: ${reply.error}`));
      this.next(thread);
    });
    // Out of memory or any other death: the task fails, the thread is replaced on demand.
    const gone = (error: Error) => {
      if (!this.threads.delete(thread)) return;
      if (thread.idleTimer) clearTimeout(thread.idleTimer);
      thread.task?.reject(new DomainError('unavailable', `the document could not be rendered (${error.message})`));
      const task = this.waiting.shift();
      if (task) this.run(this.spawn(), task);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`render thread exited with ${code}`)));
    return thread;
  }

  private run(thread: Thread, task: Task): void {
    if (thread.idleTimer) clearTimeout(thread.idleTimer);
    thread.idleTimer = null;
    thread.task = task;
    thread.worker.postMessage(task.source);
  }

  private next(thread: Thread): void {
    const task = this.waiting.shift();
    if (task) return this.run(thread, task);
    thread.idleTimer = setTimeout(() => {
      this.threads.delete(thread);
      // Out of the pool already: nothing waits for its exit code, and a failed terminate leaves an unref'd thread.
      thread.worker.terminate().catch(() => undefined);
    }, IDLE_THREAD_MS);
    thread.idleTimer.unref();
  }
}
