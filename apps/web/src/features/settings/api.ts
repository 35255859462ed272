import { z } from 'zod';
import { SettingsSchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

const SavedSettingSchema = z.object({ key: z.string(), value: z.string() });

export const getSettings = () => apiJson('/settings', SettingsSchema);
export const putSetting = (key: string, value: string) =>
  apiJson(`/settings/${encodeURIComponent(key)}`, SavedSettingSchema, { method: 'PUT', json: { value } });
