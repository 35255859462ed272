import fc from 'fast-check';
import { truncateCodePoints, truncateUtf8 } from './truncate';

// Oracles are Node built-ins and Intl.Segmenter, independent of the code under test.
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const wellFormed = (text: string): boolean =>
  !/\p{Cs}/u.test(text) && Buffer.from(text, 'utf8').toString('utf8') === text;

const tricky = fc.constantFrom(
  '👍🏽',
  '👨‍👩‍👧',
  '🇫🇷',
  '🇩',
  'e\u0301',
  '\u0301',
  '\u200d',
  '\r\n',
  'é',
  '€',
  '😀',
  '中',
  'a',
  ' ',
);
const piece = fc.oneof(
  tricky,
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
);
const text = fc.array(piece, { maxLength: 60 }).map((pieces) => pieces.join(''));
const anyUnits = fc.string({
  unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  maxLength: 40,
});

interface Unit {
  name: string;
  measure(text: string): number;
  marker(omitted: number): string;
  truncate(text: string, budget: number, marker: boolean): { text: string; truncated: boolean; omitted: number };
}

const units: Unit[] = [
  {
    name: 'UTF-8 bytes',
    measure: (s) => Buffer.byteLength(s, 'utf8'),
    marker: (n) => `…[truncated ${n} bytes]`,
    truncate: (s, budget, marker) => {
      const r = truncateUtf8(s, budget, { marker });
      return { text: r.text, truncated: r.truncated, omitted: r.omittedBytes };
    },
  },
  {
    name: 'code points',
    measure: (s) => [...s].length,
    marker: (n) => `…[truncated ${n} characters]`,
    truncate: (s, budget, marker) => {
      const r = truncateCodePoints(s, budget, { marker });
      return { text: r.text, truncated: r.truncated, omitted: r.omittedChars };
    },
  },
];

const withBudget = (unit: Unit) => text.chain((s) => fc.tuple(fc.constant(s), fc.nat({ max: unit.measure(s) + 4 })));

describe.each(units)('truncation by $name', (unit) => {
  // Splits a result into the kept prefix and its marker ('' when none).
  const split = (out: string, omitted: number, withMarker: boolean): { kept: string; marker: string } => {
    const marker = unit.marker(omitted);
    return withMarker && omitted > 0 && out.endsWith(marker)
      ? { kept: out.slice(0, -marker.length), marker }
      : { kept: out, marker: '' };
  };

  it.each([false, true])('is a well-formed, grapheme-aligned prefix within budget (marker: %s)', (withMarker) => {
    fc.assert(
      fc.property(withBudget(unit), ([input, budget]) => {
        const result = unit.truncate(input, budget, withMarker);
        const { kept, marker } = split(result.text, result.omitted, withMarker);
        expect(unit.measure(result.text)).toBeLessThanOrEqual(budget);
        expect(wellFormed(result.text)).toBe(true);
        expect(input.startsWith(kept)).toBe(true);
        expect(result.truncated).toBe(unit.measure(input) > budget);
        expect(result.omitted).toBe(unit.measure(input) - unit.measure(kept));
        // Asked for, the marker is there whenever the budget can hold it (with an empty prefix).
        const markerFits = unit.measure(unit.marker(unit.measure(input))) <= budget;
        expect(marker !== '').toBe(withMarker && result.truncated && markerFits);
        // Grapheme-aligned: the kept prefix ends on a cluster boundary of the whole input.
        const boundaries = new Set([0, ...[...segmenter.segment(input)].map((s) => s.index + s.segment.length)]);
        expect(boundaries.has(kept.length)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([false, true])('is maximal: one more grapheme would not fit (marker: %s)', (withMarker) => {
    fc.assert(
      fc.property(withBudget(unit), ([input, budget]) => {
        const result = unit.truncate(input, budget, withMarker);
        if (!result.truncated) return;
        const { kept, marker } = split(result.text, result.omitted, withMarker);
        const longer = kept + nextCluster(input, kept.length);
        const cost =
          unit.measure(longer) + (marker ? unit.measure(unit.marker(unit.measure(input) - unit.measure(longer))) : 0);
        expect(cost).toBeGreaterThan(budget);
        // The marker is left out only when even an empty prefix with a marker would not fit.
        if (withMarker && !marker) expect(unit.measure(unit.marker(unit.measure(input)))).toBeGreaterThan(budget);
      }),
      { numRuns: 1000 },
    );
  });

  it('turns lone surrogates into U+FFFD and stays within budget', () => {
    fc.assert(
      fc.property(anyUnits, fc.nat({ max: 60 }), fc.boolean(), (input, budget, withMarker) => {
        const result = unit.truncate(input, budget, withMarker);
        const repaired = Buffer.from(input, 'utf8').toString('utf8');
        expect(wellFormed(result.text)).toBe(true);
        expect(unit.measure(result.text)).toBeLessThanOrEqual(budget);
        expect(repaired.startsWith(split(result.text, result.omitted, withMarker).kept)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

function nextCluster(input: string, at: number): string {
  for (const { segment, index } of segmenter.segment(input)) if (index === at) return segment;
  throw new Error(`no cluster starts at ${at}`);
}
