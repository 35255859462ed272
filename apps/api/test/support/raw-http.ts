import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/**
 * HTTP requests with the path sent byte for byte. fetch (WHATWG URL) would normalize `..` and
 * backslashes away before they reach the server, which is exactly what the path tests must not let
 * happen.
 */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text(): string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): any;
}

export interface RawRequestOptions {
  method?: string;
  /** cookie string (`svc_session=...`) or bearer token */
  as?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export function authHeader(as: string): Record<string, string> {
  return as.includes('=') ? { cookie: as } : { authorization: `Bearer ${as}` };
}

export function rawRequest(baseUrl: string, path: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string> = { ...(options.as ? authHeader(options.as) : {}), ...options.headers };
  // As a browser does: a cookie-carrying request names the page's origin (the server's own here).
  if (headers.cookie !== undefined && headers.origin === undefined) headers.origin = new URL(baseUrl).origin;
  if (options.body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          text: () => body.toString('utf8'),
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface MultipartFile {
  filename: string;
  content: Buffer | string;
  /** Send the name as RFC 5987 `filename*=UTF-8''<value>` (value used as given, already percent-encoded). */
  extended?: boolean;
}

/** A multipart/form-data body with the given file parts (and one ordinary field, as browsers send). */
export function multipartBody(files: MultipartFile[]): { body: Buffer; contentType: string } {
  const boundary = `----svc-test-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
  ];
  for (const file of files) {
    const name = file.extended ? `filename*=UTF-8''${file.filename}` : `filename="${file.filename}"`;
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; ${name}\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
    );
    parts.push(Buffer.from(file.content));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Runs `task` over `items` with at most `concurrency` in flight. */
export async function inPool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

export interface StreamingUpload {
  /** Writes a chunk, waiting for the socket to drain. */
  write(chunk: Buffer): Promise<void>;
  end(): void;
  /** Cuts the connection mid-body, as a crashing client would. */
  abort(): void;
  /** The answer; it may arrive before the body is finished (an early 413). */
  response: Promise<RawResponse>;
}

/** A PUT whose body the test feeds chunk by chunk (chunked unless a content-length header is given). */
export function startUpload(
  baseUrl: string,
  path: string,
  options: Omit<RawRequestOptions, 'body'> = {},
): StreamingUpload {
  const { hostname, port } = new URL(baseUrl);
  const headers: Record<string, string> = { ...(options.as ? authHeader(options.as) : {}), ...options.headers };
  if (headers.cookie !== undefined && headers.origin === undefined) headers.origin = new URL(baseUrl).origin;
  const req = httpRequest({ hostname, port, path, method: options.method ?? 'PUT', headers, agent: false });
  const response = new Promise<RawResponse>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body,
          text: () => body.toString('utf8'),
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  response.catch(() => undefined); // an aborted upload has no answer; callers that care await it
  req.flushHeaders();
  return {
    write: (chunk) =>
      new Promise<void>((resolve, reject) => req.write(chunk, (error) => (error ? reject(error) : resolve()))),
    end: () => req.end(),
    abort: () => req.destroy(),
    response,
  };
}
