/** One benchmark figure, printed next to its reference and target. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  reference?: { name: string; value: number };
  target?: { op: '>=' | '<='; value: number };
}

/** Whether a figure meets its target (no target: always true). */
export function meets(figure: Figure): boolean {
  if (!figure.target) return true;
  return figure.target.op === '>='
    ? figure.value >= figure.target.value
    : figure.value <= figure.target.value;
}

function fmt(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
}

/** Prints figures as a Markdown table, ready to paste into docs/benchmarks.md. */
export function printFigures(title: string, figures: Figure[]): void {
  const lines = [
    `### ${title}`,
    '',
    '| figure | value | reference (same run) | target | met |',
    '|---|---|---|---|---|',
    ...figures.map((f) => {
      const ref = f.reference ? `${f.reference.name}: ${fmt(f.reference.value)} ${f.unit}` : '';
      const target = f.target ? `${f.target.op} ${fmt(f.target.value)} ${f.unit}` : '';
      return `| ${f.name} | ${fmt(f.value)} ${f.unit} | ${ref} | ${target} | ${f.target ? (meets(f) ? 'yes' : 'NO') : ''} |`;
    }),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
