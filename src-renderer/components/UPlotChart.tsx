import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './uplot-chart.css';

/** uPlot's options without the size: the chart takes its container's width. */
export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

/** Narrower than this, a chart is not worth drawing (a hidden tab measures 0). */
const MIN_WIDTH = 120;

/** A made chart and what undoes it (its resize observer, its listeners). */
interface Made {
  u: uPlot;
  destroy(): void;
}

/**
 * One uPlot chart, as wide as its container. Made when `options` or `height` change (the
 * caller memoises options: a new set of series or axes), in a task of its own so a tab of
 * many charts never blocks the page for their sum, the chart before it shown until then;
 * fed by `setData` when only `data` changes (a live poll), also in a task of its own;
 * resized with its container on the next frame; destroyed on unmount. A drag zooms in; while zoomed, new data keeps the
 * zoom; a double click zooms back out and lets the scales follow the data again.
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
  const chart = useRef<Made | null>(null);
  /** The data the chart was last given; the newest, for a chart made later. */
  const fed = useRef<uPlot.AlignedData | null>(null);
  const latest = useRef<uPlot.AlignedData>(data);
  latest.current = data;
  const zoomed = useRef(false);
  /** A chart is to be made: the one shown has other series than the data now has. */
  const pending = useRef(false);

  useEffect(() => {
    const el = host.current!;
    pending.current = true;
    const timer = setTimeout(() => {
      pending.current = false;
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
      // The chart it replaces goes in the same task: no frame shows neither.
      chart.current?.destroy();
      chart.current = {
        u,
        destroy: () => {
          resize.disconnect();
          cancelAnimationFrame(frame);
          u.over.removeEventListener('dblclick', unzoom);
          u.destroy();
        },
      };
    }, 0);
    return () => clearTimeout(timer);
  }, [options, height]);

  // New data goes to the chart in a task of its own too (one poll feeds every chart of a
  // tab); data that comes before it is given is taken with it.
  const feeding = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (!chart.current || pending.current || fed.current === data) return;
    clearTimeout(feeding.current);
    feeding.current = setTimeout(() => {
      const made = chart.current;
      if (!made || pending.current || fed.current === latest.current) return;
      fed.current = latest.current;
      made.u.setData(fed.current, !zoomed.current);
    }, 0);
  }, [data]);

  // Unmount: whatever chart there is goes.
  useEffect(
    () => () => {
      clearTimeout(feeding.current);
      chart.current?.destroy();
      chart.current = null;
    },
    [],
  );

  return (
    <div
      ref={host}
      className={`uplot-chart ${props.className ?? ''}`}
      style={{ minHeight: height }}
      data-testid={props.testId}
    />
  );
}
