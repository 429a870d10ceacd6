/** One column of a table: a header and how to get the cell text from a row. */
export interface Column<T> {
  header: string;
  cell: (row: T) => string;
  /** Longer cells are cut with `…`. @default 60 */
  max?: number;
  align?: 'left' | 'right';
}

// East Asian wide and fullwidth characters take two terminal cells.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

/** The number of terminal cells `text` takes. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += WIDE.test(ch) ? 2 : 1;
  return width;
}

/** Cuts `text` to at most `max` cells, ending in `…` when cut; newlines become spaces. */
export function fit(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  if (displayWidth(flat) <= max) return flat;
  let out = '';
  let width = 0;
  for (const ch of flat) {
    const w = WIDE.test(ch) ? 2 : 1;
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

const pad = (text: string, width: number, align: 'left' | 'right') => {
  const gap = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? gap + text : text + gap;
};

/** Renders rows as an aligned plain-text table with a header line; `empty` when there are no rows. */
export function formatTable<T>(columns: Column<T>[], rows: readonly T[], empty = '(none)'): string {
  if (rows.length === 0) return empty;
  const cells = rows.map((row) => columns.map((c) => fit(c.cell(row), c.max ?? 60)));
  const widths = columns.map((c, i) =>
    Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i]!))),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => pad(v, widths[i]!, columns[i]!.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n');
}

/** `key: value` lines with the keys aligned. */
export function formatFields(fields: Array<[string, string]>): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`).join('\n');
}
