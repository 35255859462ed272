import { SecretMasker } from '@svc/text';
import { maskedOutput } from './masked-output';

function collect(masker: SecretMasker | undefined) {
  const out: Buffer[] = [];
  const sink = maskedOutput(masker, (chunk) => out.push(chunk));
  return { sink, out, text: () => Buffer.concat(out).toString('utf8') };
}

describe('maskedOutput', () => {
  it('masks a value split across reads, and a character split across reads stays whole', () => {
    const { sink, out, text } = collect(new SecretMasker(['tök€n-value']));
    const bytes = Buffer.from('before tök€n-value after ü');
    // cut inside "€" (3 bytes) and inside the final "ü" (2 bytes)
    const euro = bytes.indexOf(Buffer.from('€'));
    const cuts = [0, euro + 1, euro + 2, bytes.length - 1, bytes.length];
    for (let i = 1; i < cuts.length; i++) sink.write(bytes.subarray(cuts[i - 1], cuts[i]));
    sink.end();
    expect(text()).toBe('before *** after ü');
    expect(out.every((chunk) => !chunk.toString('utf8').includes('\ufffd'))).toBe(true);
  });

  it('passes the bytes through untouched when the run has no secrets', () => {
    const { sink, out } = collect(new SecretMasker([]));
    const chunk = Buffer.from([0xff, 0xfe, 0x41]);
    sink.write(chunk);
    sink.end();
    expect(out).toEqual([chunk]);
  });
});
