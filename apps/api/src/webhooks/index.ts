export { WebhookService, payloadOf, subscribes, type WebhookSettings } from './service';
export { sendDelivery, deliveryHeaders, RESPONSE_EXCERPT_BYTES } from './sender';
export { targetProblem, isInternalAddress } from './targets';
export { newWebhookSecret, putWebhookSecret, webhookSecret, deleteWebhookSecret } from './secret';
