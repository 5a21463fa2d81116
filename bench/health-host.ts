/**
 * The health bench's host process (forked by `bench/health.ts`, loaded through `bench/transpile.js`): the module as
 * a store registers it, every option at its default, with the docs' health routes (terminus), on SQLite in a temp
 * folder. Its service is the URL in `BENCH_HEALTH_SERVICE_URL` (the bench's switch in front of the sandbox). It
 * sends `{ url }` once listening and closes when told `close`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  InvoicePaymentsModule,
  type OrderPaymentPort,
} from '../src/index';
import { HealthModule } from '../test/observability/health-controller';

/** No order changes in this bench: the port only has to exist. */
@Injectable()
class NoOrdersPort implements OrderPaymentPort {
  async onPaymentStatusChanged(): Promise<void> {}
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-health-'));
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: join(dir, 'store.sqlite'),
        entities: [...INVOICE_PAYMENTS_ENTITIES],
        migrations: [...INVOICE_PAYMENTS_MIGRATIONS],
        migrationsRun: true,
      }),
      EventEmitterModule.forRoot(),
      InvoicePaymentsModule.forRoot({
        gateway: {
          baseUrl: process.env.BENCH_HEALTH_SERVICE_URL!,
          accessToken: process.env.BENCH_HEALTH_TOKEN!,
          mode: 'sandbox',
        },
        checkout: { publicWebhookUrl: 'http://127.0.0.1:9/webhooks/invoice-payments' },
        orderPort: NoOrdersPort,
      }),
      HealthModule,
    ],
  })
  class HostModule {}
  const app = await NestFactory.create(HostModule, { logger: ['error'] });
  await app.listen(0, '127.0.0.1');
  process.on('message', (msg: string) => {
    if (msg !== 'close') return;
    void app.close().finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
  process.send?.({ url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
