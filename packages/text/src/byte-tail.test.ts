import { ByteTail } from './byte-tail';

describe('ByteTail', () => {
  it('keeps everything while it fits', () => {
    const tail = new ByteTail(10);
    tail.push(Buffer.from('abc'));
    tail.push(Buffer.from('def'));
    expect(Buffer.from(tail.bytes()).toString()).toBe('abcdef');
    expect(tail.length).toBe(6);
    expect(tail.dropped).toBe(0);
  });

  it('keeps the last bytes across chunk boundaries and counts what fell out', () => {
    const tail = new ByteTail(5);
    for (const part of ['abc', 'defg', 'h', 'ijklmnop']) tail.push(Buffer.from(part));
    expect(Buffer.from(tail.bytes()).toString()).toBe('lmnop');
    expect(tail.dropped).toBe(11);
    expect(tail.length).toBe(5);
  });

  it('cuts inside the oldest chunk when only part of it must go', () => {
    const tail = new ByteTail(4);
    tail.push(Buffer.from('abc'));
    tail.push(Buffer.from('de'));
    expect(Buffer.from(tail.bytes()).toString()).toBe('bcde');
    expect(tail.dropped).toBe(1);
  });

  it('holds nothing with a limit of 0', () => {
    const tail = new ByteTail(0);
    tail.push(Buffer.from('abc'));
    expect(tail.bytes().length).toBe(0);
    expect(tail.dropped).toBe(3);
  });
});
