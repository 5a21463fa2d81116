import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/**
 * The real OpenTelemetry SDK as a host registers it, before the app starts: spans kept in memory (with the
 * AsyncLocalStorage context manager, so the host's active span is the parent), metrics both in memory and for a
 * Prometheus scrape (the exporter's request handler, no server of its own).
 */
export function registerSdk() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(tracerProvider);
  const prometheus = new PrometheusExporter({ preventServerStart: true });
  const memory = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const memoryReader = new PeriodicExportingMetricReader({
    exporter: memory,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [prometheus, memoryReader] });
  metrics.setGlobalMeterProvider(meterProvider);
  return {
    spans,
    prometheus,
    tracer: trace.getTracer('host'),
    /** Every metric data point's attributes collected now. */
    async metricAttributes(): Promise<Array<Record<string, unknown>>> {
      await memoryReader.forceFlush();
      return memory
        .getMetrics()
        .flatMap((r) => r.scopeMetrics)
        .flatMap((s) => s.metrics)
        .flatMap((m) => m.dataPoints.map((p) => p.attributes as Record<string, unknown>));
    },
    async shutdown() {
      await meterProvider.shutdown();
      await tracerProvider.shutdown();
      contextManager.disable();
      metrics.disable();
      trace.disable();
      context.disable();
    },
  };
}
