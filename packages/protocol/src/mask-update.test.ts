import { SecretMasker } from '@svc/text';
import { maskUpdate } from './mask-update';
import { UPDATE_DATA_SCHEMAS } from './updates';

describe('maskUpdate', () => {
  it('masks free text but keeps a field the mask would make invalid (a secret that is a status word)', () => {
    const masker = new SecretMasker(['running']);
    const update = { kind: 'status' as const, data: { status: 'running' as const, error: 'still running here' } };
    const masked = maskUpdate(masker, update);
    expect(masked.data).toEqual({ status: 'running', error: 'still *** here' });
    expect(UPDATE_DATA_SCHEMAS.status.safeParse(masked.data).success).toBe(true);
    expect(update.data.error).toBe('still running here');
  });

  it('returns the update itself without secrets', () => {
    const update = { kind: 'title' as const, data: { title: 'a title' } };
    expect(maskUpdate(new SecretMasker([]), update)).toBe(update);
    expect(maskUpdate(null, update)).toBe(update);
  });
});
