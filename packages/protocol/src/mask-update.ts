import type { SecretMasker } from '@svc/text';
import { UPDATE_DATA_SCHEMAS, type UpdateKind } from './updates';

type Json = unknown;

const getAt = (value: Json, path: readonly PropertyKey[]): Json =>
  path.reduce<Json>((node, key) => (node as Record<PropertyKey, Json> | undefined)?.[key], value);

function setAt(value: Json, path: readonly PropertyKey[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<PropertyKey, Json>;
  copy[head!] = setAt(copy[head!], rest, replacement);
  return copy;
}

/**
 * An update with a run's secret values masked in every string of its data. A field the mask would
 * make invalid (an enum or a hash that happens to hold a form of a value: not free text) keeps its
 * original, so masking never makes an update unstorable. The worker masks what it sends with it, and
 * the server what it stores.
 */
export function maskUpdate<U extends { kind: UpdateKind; data: unknown }>(
  masker: SecretMasker | null | undefined,
  update: U,
): U {
  if (!masker || masker.isEmpty) return update;
  const schema = UPDATE_DATA_SCHEMAS[update.kind];
  let data: Json = masker.maskJson(update.data);
  for (let round = 0; round < 10; round++) {
    const checked = schema.safeParse(data);
    if (checked.success) break;
    for (const issue of checked.error.issues) data = setAt(data, issue.path, getAt(update.data, issue.path));
  }
  return { ...update, data };
}
