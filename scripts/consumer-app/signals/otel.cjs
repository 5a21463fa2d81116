// otel.cjs: the OpenTelemetry SDK, loaded before the app (CommonJS): node --require ./otel.cjs dist/main.js
// npm install @opentelemetry/api @opentelemetry/sdk-node @opentelemetry/exporter-prometheus @opentelemetry/instrumentation-http
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');

new NodeSDK({
  // GET /metrics on port 9464 (OTEL_EXPORTER_PROMETHEUS_PORT and _HOST change it): what Prometheus scrapes.
  metricReader: new PrometheusExporter(),
  // A server span for each HTTP request: the module's spans become its children.
  instrumentations: [new HttpInstrumentation()],
  // Spans go where OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_ENDPOINT say (default: OTLP to localhost:4318).
}).start();
