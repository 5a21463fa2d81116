import { createServer } from 'node:http';
import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { metrics, trace } from '@opentelemetry/api';
import { InvoicePaymentsHealthIndicator } from 'nestjs-invoice-payments';

/*
 * The stack with the optional peers installed (the consumer test copies this file into the app's src/ only there):
 * docs/observability.md's health controller with `@nestjs/terminus`, and the OpenTelemetry SDK its otel.cjs /
 * otel.mjs registered before the app (node --require / --import), read back: the Prometheus exporter's port, and
 * the spans its OTLP exporter sends (to a receiver here, on the port OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names).
 */

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly payments: InvoicePaymentsHealthIndicator,
  ) {}

  /** Liveness: the process answers. Nothing of the service: restarting the pod cures none of its faults. */
  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  /** Readiness: this instance can take work (its database answers). */
  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([() => this.payments.isReady('invoice_payments')]);
  }

  /** Everything, for monitoring: the service, the credential, the queues. Not a Kubernetes probe. */
  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.payments.isHealthy('invoice_payments')]);
  }
}

@Module({ imports: [TerminusModule], controllers: [HealthController] })
export class HealthModule {}

type Span = { spanId: string; parentSpanId?: string; name: string; kind: number };
type Export = { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Span[] }> }> };
const SERVER = 2; // OTLP's SPAN_KIND_SERVER

/** What the preloaded SDK gives: the Prometheus scrape, the spans exported, and its end. */
export async function startMetrics() {
  const sdkRegistered = typeof (metrics.getMeterProvider() as { shutdown?: unknown }).shutdown === 'function';
  if (!sdkRegistered)
    throw new Error('no OpenTelemetry SDK: start node with --require otel.cjs / --import otel.mjs');
  const spans: Span[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as Export;
      for (const r of body.resourceSpans ?? [])
        for (const s of r.scopeSpans ?? []) spans.push(...(s.spans ?? []));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const endpoint = new URL(
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? 'http://127.0.0.1:4318/v1/traces',
  );
  await new Promise<void>((resolve) => receiver.listen(Number(endpoint.port), '127.0.0.1', resolve));
  const port = process.env.OTEL_EXPORTER_PROMETHEUS_PORT ?? '9464';
  return {
    scrape: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    /** Whether a span named `name` was exported as the child of an HTTP server span (the instrumentation's). */
    childOfServerSpan(name: string): boolean {
      const servers = new Set(spans.filter((s) => s.kind === SERVER).map((s) => s.spanId));
      return spans.some(
        (s) => s.name === name && s.parentSpanId !== undefined && servers.has(s.parentSpanId),
      );
    },
    stop: async () => {
      // The SDK's providers: their exporters flush and close (a store's process just ends on SIGTERM).
      await (metrics.getMeterProvider() as { shutdown?: () => Promise<void> }).shutdown?.();
      const tracing = trace.getTracerProvider() as { getDelegate?: () => { shutdown?: () => Promise<void> } };
      await tracing.getDelegate?.().shutdown?.();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}
