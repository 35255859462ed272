import { SavedSettingSchema, SettingDefinitionListSchema, SettingsSchema } from '@svc/protocol';
import { apiJson } from '../../lib/api';

export const settingsSchemaKey = ['settings', 'schema'] as const;

export const getSettings = () => apiJson('/settings', SettingsSchema);
export const getSettingsSchema = () => apiJson('/settings/schema', SettingDefinitionListSchema);
export const putSetting = (key: string, value: string) =>
  apiJson(`/settings/${encodeURIComponent(key)}`, SavedSettingSchema, { method: 'PUT', json: { value } });
