/** A destination for a pino logger that keeps every line it is given, parsed (pino writes one line per call). */
export function logSink(): { stream: { write(line: string): void }; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { stream: { write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>) }, lines };
}
