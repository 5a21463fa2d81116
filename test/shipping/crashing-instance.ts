/**
 * A host instance that dies by SIGKILL in the middle of posting a tracking code, run as a child process by
 * `tracking-crash.e2e.spec.ts`. Its worker claims the due rows and posts through a real `GatewayClient` that kills
 * the process at the point named by `crash`:
 * - `after-answer`: once the service answered the post, before the worker records the row sent;
 * - `before-post`: before the request leaves.
 * The process never exits by itself: the parent reads its end (signal `SIGKILL`) as the proof the crash happened.
 */
import 'reflect-metadata';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { TrackingParams } from '../../src/gateway/types';
import { InvoiceRecord } from '../../src/persistence/invoice.entity';
import { ShippingModule } from '../../src/shipping/shipping.module';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { TrackingWorker } from '../../src/shipping/tracking.worker';

export interface CrashingInstanceConfig {
  database: DataSourceOptions;
  baseUrl: string;
  accessToken: string;
  leaseMs: number;
  crash: 'after-answer' | 'before-post';
}

function die(): Promise<never> {
  process.kill(process.pid, 'SIGKILL');
  return new Promise<never>(() => undefined);
}

async function main(config: CrashingInstanceConfig): Promise<void> {
  const gatewayOptions = {
    baseUrl: config.baseUrl,
    accessToken: config.accessToken,
    mode: 'sandbox' as const,
  };

  class CrashingClient extends GatewayClient {
    override async addTrackingCode(params: TrackingParams): Promise<never> {
      if (config.crash === 'before-post') return die();
      await super.addTrackingCode(params);
      return die();
    }
  }

  @Global()
  @Module({
    providers: [{ provide: GatewayClient, useFactory: () => new CrashingClient(gatewayOptions) }],
    exports: [GatewayClient],
  })
  class GatewayModule {}

  @Module({
    imports: [
      TypeOrmModule.forRoot({
        ...config.database,
        migrationsRun: false,
        entities: [InvoiceRecord, TrackingOutbox],
      }),
      EventEmitterModule.forRoot(),
      GatewayModule,
      ShippingModule.forRoot({ autoStartWorker: false, leaseMs: config.leaseMs }),
    ],
  })
  class InstanceModule {}

  const app = await NestFactory.createApplicationContext(InstanceModule, { logger: false });
  await app.get(TrackingWorker).runOnce();
  // Reaching this line means the instance did not crash where it was told to.
  process.exit(3);
}

main(JSON.parse(process.env.CRASHING_INSTANCE ?? '{}') as CrashingInstanceConfig).catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
