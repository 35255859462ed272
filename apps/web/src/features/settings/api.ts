import { SavedSettingSchema, SettingsSchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

export const getSettings = () => apiJson('/settings', SettingsSchema);
export const putSetting = (key: string, value: string) =>
  apiJson(`/settings/${encodeURIComponent(key)}`, SavedSettingSchema, { method: 'PUT', json: { value } });
