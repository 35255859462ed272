import type { Request } from 'express';
import type { Db } from '@svc/db';
import type { TriggerFormat } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { DomainError, notFound } from '../../domain/errors';
import { payloadTooLarge } from '../../services/streaming-upload';
import { checkDeclaredLength, lingerOnUnreadBody } from '../files/request-body';
import { TriggerDeliveries } from '../../triggers/deliveries';
import { verifyDelivery } from '../../triggers/signature';

/** Largest delivery body read (GitHub's payloads are far smaller; its own cap is 25 MB). */
export const MAX_HOOK_BODY_BYTES = 1024 * 1024;

/** The body's bytes, refused with 413 as soon as it passes the cap (the rest is never buffered). */
export function readCappedBody(req: Request, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.pause();
        reject(payloadTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('aborted', () => reject(new DomainError('invalid_input', 'the client aborted the delivery')));
  });
}

/** An enabled trigger of a live project; anything else answers like an unknown id. */
async function liveTrigger(db: Db, id: string) {
  const trigger = await db.trigger.findFirst({
    where: { id, enabled: true, deleted_at: null, project: { deleted_at: null } },
  });
  if (!trigger) throw notFound('trigger not found');
  return trigger;
}

/**
 * `POST /hooks/{id}`: a delivery. No session: the signature over the exact body is the credential. Its
 * body is skipped by the JSON parser (routes/files/raw-body-paths.ts) so the bytes signed are the bytes
 * checked. Refusals: 413 (too large), 404 (unknown or disabled), 415 (not JSON), 401 (signature), 400
 * (headers, timestamp, JSON), 409 (a delivery id reused with another body), 429 (rate limit); none of
 * them stores anything.
 */
export function hookHandlers(deps: AppDeps): Handlers<'receiveHook'> {
  const deliveries = new TriggerDeliveries(deps);
  const receiveHook: OperationHandler<'receiveHook'> = async (req, res, input) => {
    lingerOnUnreadBody(req, res);
    checkDeclaredLength(req, MAX_HOOK_BODY_BYTES);
    const trigger = await liveTrigger(deps.db, input.params.id);
    if (!req.is(['application/json', '+json']))
      throw new DomainError('unsupported_media_type', 'a delivery must be sent as application/json');
    const body = await readCappedBody(req, MAX_HOOK_BODY_BYTES);
    const verified = verifyDelivery(trigger.format as TriggerFormat, trigger.secret, req.headers, body);
    const { status, result } = await deliveries.accept(trigger, verified, body);
    if (result.workflow_id) res.location(`/svc/api/workflows/${result.workflow_id}`);
    res.status(status).json(result);
  };
  return { receiveHook };
}
