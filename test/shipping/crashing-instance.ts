/**
 * A host instance that dies by SIGKILL in the middle of posting a tracking code, run as a child process by
 * `tracking-crash.e2e.spec.ts`. Its worker claims the due rows and posts through a real `GatewayClient` that kills
 * the process at the point named by `crash`:
 * - `after-answer`: once the service answered the post, before the worker records the row sent;
 * - `before-post`: before the request leaves.
 * The process never exits by itself: the parent reads its end (signal `SIGKILL`) as the proof the crash happened.
 */
import 'reflect-metadata';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { DataSourceOptions } from 'typeorm';
import { GatewayClient } from '../../src/gateway/gateway.client';
import type { TrackingParams } from '../../src/gateway/types';
import { INVOICE_PAYMENTS_ENTITIES } from '../../src/entities';
import { TrackingWorker } from '../../src/shipping/tracking.worker';
import { testRootModule } from '../support/root-app';

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

  // The whole module, its workers left to this script, its client the crashing one.
  const app = await Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        ...config.database,
        migrationsRun: false,
        entities: INVOICE_PAYMENTS_ENTITIES,
      }),
      EventEmitterModule.forRoot(),
      testRootModule({ gateway: gatewayOptions, shipping: { leaseMs: config.leaseMs }, workers: false }),
    ],
  })
    .overrideProvider(GatewayClient)
    .useValue(new CrashingClient(gatewayOptions))
    .compile();
  app.useLogger(false);
  await app.init();
  await app.get(TrackingWorker).runOnce();
  // Reaching this line means the instance did not crash where it was told to.
  process.exit(3);
}

main(JSON.parse(process.env.CRASHING_INSTANCE ?? '{}') as CrashingInstanceConfig).catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});
