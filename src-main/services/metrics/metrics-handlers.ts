import type { Handlers } from '../../contract';
import { readRunMetrics, type MetricsDeps } from './run-metrics';

/** `run.metrics`: a run's metrics as series, read from the datastream (run-metrics.ts). */
export function metricsHandlers(deps: MetricsDeps): Pick<Handlers, 'run.metrics'> {
  return {
    'run.metrics': (args) => readRunMetrics(deps, args),
  };
}
