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
