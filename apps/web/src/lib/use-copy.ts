import { useState } from 'react';

export type CopyOutcome = 'yes' | 'failed' | null;

/**
 * Copies `value` to the clipboard; without clipboard permission, `selectInstead` selects the text on the
 * page so Ctrl+C copies it. `copied` says which happened (null before the first try), for a status line.
 */
export function useCopy(value: string, selectInstead: () => void): { copied: CopyOutcome; copy(): Promise<void> } {
  const [copied, setCopied] = useState<CopyOutcome>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      selectInstead();
      setCopied('failed');
    }
  };
  return { copied, copy };
}
