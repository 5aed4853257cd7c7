import { sparklinePath, type SparkPoint } from './sparkline-geometry';

/** A tiny inline line of utilisation over time (GPU samples), 0% at the bottom. */
export function Sparkline(props: {
  points: readonly SparkPoint[];
  width?: number;
  height?: number;
  label: string;
}): React.JSX.Element {
  const { points, width = 56, height = 14, label } = props;
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <line className="sparkline-base" x1={0} x2={width} y1={height - 0.5} y2={height - 0.5} />
      <path className="sparkline-line" d={sparklinePath(points, width, height)} />
    </svg>
  );
}
