import { Link } from 'react-router';
import type { Usage } from './useUsage';
import { formatUsd } from './cost';

type Priced = Extract<NonNullable<Usage['prices']>, { kind: 'prices' }>;
type Unpriced = Exclude<NonNullable<Usage['prices']>, Priced>;

/** The run's estimated cost in USD, or why there is none: no usage yet, or no prices set (where to set them). */
export function Cost({ usage }: { usage: Usage }) {
  const { prices, cost } = usage;
  if (prices === null || usage.totals === null) return <>—</>;
  if (prices.kind !== 'prices') return <NoPrices prices={prices} />;
  if (!cost) return <>—</>;
  const notes = costNotes(cost);
  return (
    <>
      {cost.usd === 0 && cost.unpriced.length > 0 ? '—' : `≈ ${formatUsd(cost.usd)}`}
      {notes.length > 0 && <span className="muted"> ({notes.join('; ')})</span>}
    </>
  );
}

function NoPrices({ prices }: { prices: Unpriced }) {
  return (
    <>
      {prices.kind === 'unset' ? 'no prices set' : `prices unreadable: ${prices.problem}`} (
      <Link to="/settings">set them in Settings</Link>)
    </>
  );
}

/** What the estimate leaves out: calls past the first page, models without a price. */
function costNotes(cost: NonNullable<Usage['cost']>): string[] {
  const notes: string[] = [];
  if (cost.partial) notes.push('first calls only');
  if (cost.unpriced.length > 0) notes.push(`no price for ${cost.unpriced.join(', ')}`);
  return notes;
}
