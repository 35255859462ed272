import type { SettingDefinition } from '@svc/protocol';
import { ApiError, errorMessage } from '../../lib/api';

/**
 * What a failed save tells the person (issue 29, finding 6): the server names the field and key for
 * programs (`body.value: llm_prices: is not valid JSON`); the page says it about the setting by its label
 * (`LLM prices: is not valid JSON.`). Other failures keep their own message.
 */
export function settingSaveError(error: unknown, definition: Pick<SettingDefinition, 'key' | 'label'>): string | null {
  if (!error) return null;
  const prefix = `body.value: ${definition.key}: `;
  if (error instanceof ApiError && error.code === 'invalid_input' && error.message.startsWith(prefix)) {
    const problem = error.message.slice(prefix.length).replace(/\.$/, '');
    return `Not saved: ${definition.label} ${problem}.`;
  }
  return errorMessage(error);
}
