import type { CommandOutputMessage } from '@svc/protocol';
import type { SecretMasker } from '@svc/text';

/** Live command output with the run's secret values masked in its command line and its chunk. */
export function maskCommandOutput(masker: SecretMasker | null, message: CommandOutputMessage): CommandOutputMessage {
  if (!masker || masker.isEmpty) return message;
  if (message.event === 'started') return { ...message, command: masker.mask(message.command) };
  if (message.event === 'output') return { ...message, chunk: masker.mask(message.chunk) };
  return message;
}
