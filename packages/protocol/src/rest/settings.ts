import { z } from 'zod';

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

/** One entry of GET /templates (one per remote branch of the template repository). */
export const TemplateSchema = z.object({ name: z.string(), description: z.string() });
export type Template = z.infer<typeof TemplateSchema>;
