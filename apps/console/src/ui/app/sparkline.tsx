// A small line chart in SVG for a trend: the values in order, the last one marked.

/** A sparkline of `values` (nulls are gaps); `format` labels the last value and the range. */
export function Sparkline({
  values,
  label,
  format,
  max,
}: {
  values: Array<number | null>;
  label: string;
  format: (v: number) => string;
  /** Fixed top of the scale (e.g. 1 for a rate); default the largest value. */
  max?: number;
}) {
  const W = 240;
  const H = 48;
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0)
    return (
      <figure class="spark spark-empty">
        <figcaption>{label}: no data yet</figcaption>
      </figure>
    );
  const top = max ?? Math.max(...known, 1e-9);
  const step = values.length > 1 ? W / (values.length - 1) : 0;
  const y = (v: number) => H - 4 - (Math.min(v, top) / top) * (H - 8);
  let d = '';
  let pen = false;
  values.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    d += `${pen ? 'L' : 'M'}${(i * step).toFixed(1)},${y(v).toFixed(1)} `;
    pen = true;
  });
  const lastIndex = values.length - 1 - [...values].reverse().findIndex((v) => v !== null);
  const last = values[lastIndex] as number;
  return (
    <figure class="spark">
      <svg
        viewBox={`-3 0 ${W + 6} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${label}: ${known.length} points, last ${format(last)}`}
      >
        <line class="spark-base" x1="0" x2={W} y1={H - 4} y2={H - 4} />
        <path class="spark-line" d={d.trim()} vector-effect="non-scaling-stroke" />
        <circle class="spark-dot" cx={lastIndex * step} cy={y(last)} r="3" />
      </svg>
      <figcaption>
        {label}: <strong>{format(last)}</strong>
        <span class="muted">
          {' '}
          (min {format(Math.min(...known))}, max {format(Math.max(...known))})
        </span>
      </figcaption>
    </figure>
  );
}
