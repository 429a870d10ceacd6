/** Splits a text stream into lines (`\n` or `\r\n`), holding a partial last line until more arrives. */
export class NdjsonLines {
  private pending = '';

  constructor(private readonly maxLineChars = 16 * 1024 * 1024) {}

  /** Complete lines in `chunk` (blank lines skipped); throws when a line grows past the limit. */
  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    if (this.pending.length > this.maxLineChars)
      throw new Error(`an NDJSON line is longer than ${this.maxLineChars} characters`);
    const lines: string[] = [];
    for (const part of parts) {
      const line = part.endsWith('\r') ? part.slice(0, -1) : part;
      if (line.trim().length > 0) lines.push(line);
    }
    return lines;
  }

  /** What is left without a newline at the end of the stream. */
  rest(): string {
    return this.pending.trim();
  }
}
