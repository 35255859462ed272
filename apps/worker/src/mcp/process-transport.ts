import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { BackgroundProcess } from '../executor/background-process';

/**
 * The MCP stdio transport over a program the worker started in the command sandbox (the SDK's
 * StdioClientTransport spawns its own process, outside any sandbox): newline-delimited JSON-RPC on
 * the program's stdin and stdout. Closing it stops the program.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(private readonly program: BackgroundProcess) {}

  async start(): Promise<void> {
    const { child } = this.program;
    child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      this.drain();
    });
    child.stdout!.on('error', (error) => this.onerror?.(error));
    child.stdin!.on('error', (error) => this.onerror?.(error));
    child.once('exit', () => this.ended());
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.program.child.stdin;
    if (this.closed || !stdin || stdin.destroyed) return Promise.reject(new Error('the MCP server has ended'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.program.child.stdin?.end();
    await this.program.stop();
    this.ended();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
