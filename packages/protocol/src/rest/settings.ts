import { z } from 'zod';
import { TimestampSchema } from '../common';

/** Setting keys as they appear in PUT /settings/{key}. */
export const SettingKeySchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, "_", "." and "-", 1 to 100 characters');
export type SettingKey = z.infer<typeof SettingKeySchema>;

/** GET /settings -> `{key: value}` */
export const SettingsSchema = z.record(z.string(), z.string());
export type Settings = z.infer<typeof SettingsSchema>;

export const PutSettingRequestSchema = z.object({ value: z.string().max(100_000) }).strict();
export type PutSettingRequest = z.infer<typeof PutSettingRequestSchema>;

/** PUT /settings/{key} answers with the saved setting. */
export const SavedSettingSchema = z.object({
  key: SettingKeySchema,
  value: z.string(),
  updated_at: TimestampSchema,
});
export type SavedSetting = z.infer<typeof SavedSettingSchema>;

export const SettingTypeSchema = z.enum(['string', 'number', 'boolean', 'json']);
export type SettingType = z.infer<typeof SettingTypeSchema>;

/**
 * One entry of `GET /settings/schema`: a setting the service reads. `default` is the value in effect
 * while the setting is unset, written as `PUT /settings/{key}` takes it (a string, like every value).
 */
export const SettingDefinitionSchema = z.object({
  key: SettingKeySchema,
  label: z.string(),
  description: z.string(),
  type: SettingTypeSchema,
  default: z.string(),
});
export type SettingDefinition = z.infer<typeof SettingDefinitionSchema>;

/** GET /settings/schema: a plain array, in the order a settings form shows them. */
export const SettingDefinitionListSchema = z.array(SettingDefinitionSchema);

/** A model's price in US dollars per million tokens. */
export const ModelPriceSchema = z
  .object({
    prompt_per_million: z.number().finite().min(0).max(1_000_000),
    completion_per_million: z.number().finite().min(0).max(1_000_000),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** The `llm_prices` setting (JSON): `{"<model>": {prompt_per_million, completion_per_million}}`. */
export const LlmPricesSchema = z.record(z.string().trim().min(1).max(200), ModelPriceSchema);
export type LlmPrices = z.infer<typeof LlmPricesSchema>;
