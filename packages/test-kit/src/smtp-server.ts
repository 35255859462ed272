import path from 'node:path';
import { tmpdir } from 'node:os';
import { INHERITED_PATH } from './env';
import { spawnProcess, type ManagedProcess } from './process';

/** A mail the SMTP server received, with its text part decoded. */
export interface ReceivedMail {
  from: string | null;
  to: string[];
  subject: string;
  /** the text/plain part (quoted-printable and base64 decoded), or the whole body when there is no part */
  text: string;
  /** the text/html part, decoded; null when there is none */
  html: string | null;
  /** the message as received */
  raw: string;
}

export interface SmtpServer {
  port: number;
  /** `smtp://[user:pass@]127.0.0.1:<port>`, the API's SMTP_URL */
  url: string;
  /** every mail received so far, in order */
  readonly mails: ReceivedMail[];
  /** resolves with the first mail (received before or after the call) that matches; an event, not a poll */
  nextMail(match?: (mail: ReceivedMail) => boolean): Promise<ReceivedMail>;
  readonly process: ManagedProcess;
  close(): Promise<void>;
}

/**
 * A real SMTP server process (`smtp-server` from npm) on a free loopback port. With `auth`, it refuses
 * mail from clients that do not log in with that user and password (the URL carries them).
 */
export async function startSmtpServer(options: { auth?: { user: string; pass: string } } = {}): Promise<SmtpServer> {
  const script = path.join(__dirname, '..', 'bin', 'smtp-server.cjs');
  const env: NodeJS.ProcessEnv = { PATH: INHERITED_PATH, HOME: tmpdir() };
  if (options.auth) Object.assign(env, { SMTP_USER: options.auth.user, SMTP_PASS: options.auth.pass });
  const child = spawnProcess('smtp-server', process.execPath, [script], { cwd: path.dirname(script), env });
  const mails: ReceivedMail[] = [];
  const waiting = new Set<{ match: (mail: ReceivedMail) => boolean; resolve: (mail: ReceivedMail) => void }>();
  const listening = child.nextLine((line) => line.startsWith('{"type":"listening"'));
  const stopListening = listenLines(child, (line) => {
    if (!line.startsWith('{"type":"mail"')) return;
    const event = JSON.parse(line) as { from: string | null; to: string[]; raw: string };
    const mail = parseMail(event.from, event.to, Buffer.from(event.raw, 'base64').toString('utf8'));
    mails.push(mail);
    for (const waiter of [...waiting])
      if (waiter.match(mail)) {
        waiting.delete(waiter);
        waiter.resolve(mail);
      }
  });
  const { port } = JSON.parse(await listening) as { port: number };
  const credentials = options.auth
    ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
    : '';
  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    mails,
    process: child,
    nextMail(match = () => true) {
      const earlier = mails.find(match);
      if (earlier) return Promise.resolve(earlier);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve };
        waiting.add(waiter);
        child.exited.then(() => {
          if (waiting.delete(waiter)) reject(new Error(`smtp-server exited before the awaited mail\n${child.tail()}`));
        }, reject);
      });
    },
    async close() {
      stopListening();
      await child.stop('SIGTERM');
    },
  };
}

/** Every stdout line of the process, until the returned function is called. */
function listenLines(child: ManagedProcess, onLine: (line: string) => void): () => void {
  let partial = '';
  const onData = (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  };
  child.child.stdout?.on('data', onData);
  return () => child.child.stdout?.off('data', onData);
}

const decodeQuotedPrintable = (text: string) =>
  Buffer.from(
    text
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

function headerOf(head: string, name: string): string {
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(unfolded);
  return match?.[1]?.trim() ?? '';
}

function decodeBody(head: string, body: string): string {
  const encoding = headerOf(head, 'Content-Transfer-Encoding').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

function splitHead(part: string): [string, string] {
  const at = part.search(/\r?\n\r?\n/);
  if (at < 0) return [part, ''];
  const gap = /\r?\n\r?\n/.exec(part.slice(at))![0].length;
  return [part.slice(0, at), part.slice(at + gap)];
}

/** Enough of RFC 5322 / MIME for tests: the subject, the text/plain part and the text/html part. */
export function parseMail(from: string | null, to: string[], raw: string): ReceivedMail {
  const [head, body] = splitHead(raw);
  const type = headerOf(head, 'Content-Type');
  let text = decodeBody(head, body);
  let html: string | null = /text\/html/i.test(type) ? text : null;
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (boundary) {
    const parts = body.split(`--${boundary}`).slice(1, -1);
    let plain: string | null = null;
    for (const part of parts) {
      const [partHead, partBody] = splitHead(part.replace(/^\r?\n/, ''));
      const partType = headerOf(partHead, 'Content-Type');
      const decoded = () => decodeBody(partHead, partBody.replace(/\r?\n$/, ''));
      if (plain === null && /text\/plain/i.test(partType)) plain = decoded();
      else if (html === null && /text\/html/i.test(partType)) html = decoded();
    }
    if (plain !== null) text = plain;
  }
  return { from, to, subject: headerOf(head, 'Subject'), text, html, raw };
}
