// otel.mjs: the OpenTelemetry SDK, loaded before the app (ES module): node --import ./otel.mjs dist/main.js
// npm install @opentelemetry/api @opentelemetry/sdk-node @opentelemetry/exporter-prometheus @opentelemetry/instrumentation-http
import { NodeSDK } from '@opentelemetry/sdk-node';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';

new NodeSDK({
  // GET /metrics on port 9464 (OTEL_EXPORTER_PROMETHEUS_PORT and _HOST change it): what Prometheus scrapes.
  metricReader: new PrometheusExporter(),
  // A server span for each HTTP request: the module's spans become its children.
  instrumentations: [new HttpInstrumentation()],
  // Spans go where OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_ENDPOINT say (default: OTLP to localhost:4318).
}).start();
