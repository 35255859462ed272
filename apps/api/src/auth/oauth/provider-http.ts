import { DomainError } from '../../domain/errors';

/** How long one call to the sign-in provider may take before sign-in fails with `unavailable`. */
export const PROVIDER_TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 1024 * 1024;

export type ProviderEndpoint = 'token' | 'user info';

/** A sign-in step the provider refused (4xx or an error code in the body): the user is not signed in. */
export const providerRefused = (endpoint: ProviderEndpoint, detail: string) =>
  new DomainError(
    'unauthenticated',
    `sign-in failed: the provider's ${endpoint} endpoint refused the request (${detail})`,
  );

/** The provider did not answer usefully (network, timeout, 5xx, unexpected body): try again later. */
export const providerUnavailable = (endpoint: ProviderEndpoint, detail: string) =>
  new DomainError('unavailable', `sign-in failed: the provider's ${endpoint} endpoint ${detail}`);

/** Keeps only a short token of a provider-supplied error code, so nothing arbitrary reaches our error body. */
export function safeCode(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  return /^[\w.:-]{1,64}$/.test(text) ? text : 'unspecified';
}

export interface ProviderRequest {
  endpoint: ProviderEndpoint;
  url: string;
  method: 'GET' | 'POST';
  form?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** The form without its unset fields; undefined without a form. */
function formBody(form: ProviderRequest['form']): URLSearchParams | undefined {
  if (!form) return undefined;
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) if (value !== undefined) body.set(key, value);
  return body;
}

/** The provider's answer and its body text; unreachable or too slow is `unavailable`. */
async function fetchText(request: ProviderRequest): Promise<{ response: Response; text: string }> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { accept: 'application/json', ...request.headers },
      body: formBody(request.form),
      redirect: 'error',
      signal: AbortSignal.timeout(request.timeoutMs ?? PROVIDER_TIMEOUT_MS),
    });
    return { response, text: await response.text() };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    throw providerUnavailable(request.endpoint, timedOut ? 'did not answer in time' : 'could not be reached');
  }
}

/** Calls a provider endpoint and returns its JSON object body; maps every failure to a typed DomainError. */
export async function providerJson(request: ProviderRequest): Promise<Record<string, unknown>> {
  const { response, text } = await fetchText(request);
  const json = Buffer.byteLength(text) <= MAX_BODY_BYTES ? parseObject(text) : null;
  if (response.status >= 400 && response.status < 500) {
    throw providerRefused(request.endpoint, `HTTP ${response.status}: ${safeCode(json?.error ?? errorOf(json))}`);
  }
  if (!response.ok) throw providerUnavailable(request.endpoint, `answered HTTP ${response.status}`);
  if (!json) throw providerUnavailable(request.endpoint, 'answered with a body that is not a JSON object');
  return json;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The error code of the short-video SSO's `{data: {error_code}}` envelope, if any. */
function errorOf(json: Record<string, unknown> | null): unknown {
  const data = json?.data;
  return data && typeof data === 'object' ? (data as Record<string, unknown>).error_code : undefined;
}
