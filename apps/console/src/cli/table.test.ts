import { describe, expect, it } from 'vitest';
import { displayWidth, fit, formatTable } from './table.js';

describe('formatTable', () => {
  it('aligns columns, right-aligns numbers and counts wide characters as two cells', () => {
    const text = formatTable(
      [
        { header: 'task', cell: (r: { task: string; n: number }) => r.task },
        { header: 'n', cell: (r) => String(r.n), align: 'right' },
      ],
      [
        { task: '设计方案', n: 5 },
        { task: 'plan', n: 120 },
      ],
    );
    expect(text.split('\n')).toEqual(['TASK        N', '设计方案    5', 'plan      120']);
  });

  it('cuts long cells and flattens newlines', () => {
    expect(fit('line one\n  line two', 100)).toBe('line one line two');
    expect(fit('abcdefghij', 5)).toBe('abcd…');
    expect(displayWidth(fit('设计一份生日派对策划', 7))).toBeLessThanOrEqual(7);
  });

  it('says when there are no rows', () => {
    expect(formatTable([{ header: 'x', cell: () => '' }], [], 'no traces')).toBe('no traces');
  });
});
