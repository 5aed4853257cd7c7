import { sparklinePath, thresholdY, type SparkPoint } from './sparkline-geometry';

/** A tiny inline line of utilisation over time (GPU samples), 0% at the bottom; with
 *  `threshold` (percent), a dashed line at it (the GPU idle rule's). */
export function Sparkline(props: {
  points: readonly SparkPoint[];
  width?: number;
  height?: number;
  label: string;
  threshold?: number;
}): React.JSX.Element {
  const { points, width = 56, height = 14, label, threshold } = props;
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
      {threshold !== undefined && (
        <line
          className="sparkline-threshold"
          data-testid="sparkline-threshold"
          x1={0}
          x2={width}
          y1={thresholdY(threshold, height)}
          y2={thresholdY(threshold, height)}
        />
      )}
      <path className="sparkline-line" d={sparklinePath(points, width, height)} />
    </svg>
  );
}
