import {
  NotificationPreferencesSchema,
  TestNotificationResultSchema,
  type NotificationChannel,
  type NotificationPreferences,
  type PutNotificationPreferencesRequest,
  type TestNotificationResult,
} from '@svc/protocol';
import { apiJson } from '../../lib/api';

export const notificationsKey = ['me', 'notifications'] as const;

export const getNotifications = (): Promise<NotificationPreferences> =>
  apiJson('/me/notifications', NotificationPreferencesSchema);

export const putNotifications = (body: PutNotificationPreferencesRequest): Promise<NotificationPreferences> =>
  apiJson('/me/notifications', NotificationPreferencesSchema, { method: 'PUT', json: body });

export const sendTestNotification = (channel: NotificationChannel): Promise<TestNotificationResult> =>
  apiJson('/me/notifications/test', TestNotificationResultSchema, { method: 'POST', json: { channel } });
