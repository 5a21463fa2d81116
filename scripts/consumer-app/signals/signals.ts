import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { InvoicePaymentsHealthIndicator } from 'nestjs-invoice-payments';

/*
 * The stack with the optional peers installed (the consumer test copies this file into the app's src/ only there):
 * the README's `/health` with `@nestjs/terminus`, and the OpenTelemetry SDK with the Prometheus exporter, registered
 * before the app starts, as docs/observability.md says.
 */

@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly payments: InvoicePaymentsHealthIndicator,
  ) {}

  @Get('health')
  @HealthCheck()
  check() {
    return this.health.check([() => this.payments.isHealthy('invoice_payments')]);
  }
}

@Module({ imports: [TerminusModule], controllers: [HealthController] })
export class HealthModule {}

/** The SDK's meter provider with a Prometheus exporter on its own loopback port; `scrape()` reads it. */
export async function startMetrics(): Promise<{ scrape(): Promise<string>; stop(): Promise<void> }> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
  const server = createServer((req, res) => exporter.getMetricsRequestHandler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  return {
    scrape: async () => (await fetch(url)).text(),
    stop: async () => {
      await new Promise((resolve) => server.close(resolve));
      await provider.shutdown();
    },
  };
}
