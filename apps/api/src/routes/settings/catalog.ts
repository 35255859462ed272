import { z } from 'zod';
import type { Db } from '@svc/db';
import { LlmPricesSchema, type SettingDefinition } from '@svc/protocol';

interface SettingSpec<T> extends SettingDefinition {
  /** parses a stored value; a value that does not parse is invalid input on PUT and the default on read */
  schema: z.ZodType<T>;
}

const jsonText = <T>(schema: z.ZodType<T>) =>
  z.string().transform((text, ctx): T => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    ctx.addIssue({ code: 'custom', message: `${issue?.message ?? 'is not valid'}${where}` });
    return z.NEVER;
  });

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/**
 * Every setting the service reads, with what the settings page shows about it. A setting that is not
 * listed here may still be stored (`PUT /settings/{key}` takes any key), but nothing reads it.
 */
export const SETTINGS = {
  llm_prices: {
    key: 'llm_prices',
    label: 'LLM prices',
    description:
      'Price of each model in US dollars per million tokens, prompt and completion separately. Run pages ' +
      'multiply the tokens a run used by these to show its estimated cost; a model without a price shows no cost.',
    type: 'json',
    default: '{}',
    schema: jsonText(LlmPricesSchema),
  },
  llm_detail_retention_days: {
    key: 'llm_detail_retention_days',
    label: 'LLM call detail retention (days)',
    description:
      'How many days the messages sent to the model and its replies are kept for the LLM call detail view. ' +
      'Older details are deleted (the call itself, its tokens and duration stay). 0 keeps none.',
    type: 'number',
    default: '30',
    schema: wholeNumber(0, 36_500),
  },
} as const satisfies Record<string, SettingSpec<unknown>>;

export type SettingKeyRead = keyof typeof SETTINGS;
export type SettingValue<K extends SettingKeyRead> = z.output<(typeof SETTINGS)[K]['schema']>;

/** `GET /settings/schema`: the definitions without their parsers. */
export function settingDefinitions(): SettingDefinition[] {
  return Object.values(SETTINGS).map(({ key, label, description, type, default: fallback }) => ({
    key,
    label,
    description,
    type,
    default: fallback,
  }));
}

/** Why `value` is not valid for `key` (null when it is, or when the service does not read `key`). */
export function settingProblem(key: string, value: string): string | null {
  const spec: SettingSpec<unknown> | undefined = (SETTINGS as Record<string, SettingSpec<unknown>>)[key];
  if (!spec) return null;
  const parsed = spec.schema.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'is not valid');
}

/** The value of a setting the service reads: the stored one, or the default when unset or unreadable. */
export async function readSetting<K extends SettingKeyRead>(db: Db, key: K): Promise<SettingValue<K>> {
  const spec = SETTINGS[key] as unknown as SettingSpec<SettingValue<K>>;
  const row = await db.setting.findUnique({ where: { key } });
  const parsed = row ? spec.schema.safeParse(row.value) : null;
  return parsed?.success ? parsed.data : spec.schema.parse(spec.default);
}
