import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './uplot-chart.css';

/** uPlot's options without the size: the chart takes its container's width. */
export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/** Narrower than this, a chart is not worth drawing (a hidden tab measures 0). */
const MIN_WIDTH = 120;

/**
 * One uPlot chart, as wide as its container. Made when `options` or `height` change (the
 * caller memoises options: a new set of series or axes), fed by `setData` when only `data`
 * changes (a live poll), resized with its container on the next frame, destroyed on
 * unmount. A drag zooms in; while zoomed, new data keeps the zoom; a double click zooms
 * back out and lets the scales follow the data again.
 */
export function UPlotChart(props: {
  options: ChartOptions;
  data: uPlot.AlignedData;
  height: number;
  className?: string;
  testId?: string;
}): React.JSX.Element {
  const { options, data, height } = props;
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  /** The data the chart was last given (the creating effect reads the newest). */
  const fed = useRef<uPlot.AlignedData>(data);
  const latest = useRef<uPlot.AlignedData>(data);
  latest.current = data;
  const zoomed = useRef(false);

  useEffect(() => {
    const el = host.current!;
    const opts: uPlot.Options = {
      ...options,
      width: Math.max(el.clientWidth, MIN_WIDTH),
      height,
      hooks: {
        ...options.hooks,
        setSelect: [
          ...(options.hooks?.setSelect ?? []),
          (u) => {
            if (u.select.width > 0) zoomed.current = true;
          },
        ],
      },
    };
    fed.current = latest.current;
    const u = new uPlot(opts, fed.current, el);
    chart.current = u;
    const unzoom = () => (zoomed.current = false);
    u.over.addEventListener('dblclick', unzoom);
    let frame = 0;
    const resize = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const width = el.clientWidth;
        if (width >= MIN_WIDTH && width !== u.width) u.setSize({ width, height });
      });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      cancelAnimationFrame(frame);
      u.over.removeEventListener('dblclick', unzoom);
      chart.current = null;
      u.destroy();
    };
  }, [options, height]);

  useEffect(() => {
    const u = chart.current;
    if (!u || fed.current === data) return;
    fed.current = data;
    u.setData(data, !zoomed.current);
  }, [data]);

  return (
    <div ref={host} className={`uplot-chart ${props.className ?? ''}`} data-testid={props.testId} />
  );
}
