import { ConsoleLogger } from '@nestjs/common';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import { InvoicePaymentsModule } from '../../src/index';
import { openCheckoutDatabase } from '../checkout/support';
import { SANDBOX_TOKEN, typeOrmOnTestDatabase } from '../support/app';
import type { TestDatabase } from '../support/databases';

/** Collects what the module logs at warn level. */
class WarnCollector extends ConsoleLogger {
  readonly warnings: string[] = [];
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  override log(): void {}
}

/** The "admin API is locked" warning is for apps that serve the admin routes, not for a context without HTTP. */
describe('the admin API lock warning', () => {
  let db: TestDatabase;
  beforeAll(async () => (db = await openCheckoutDatabase('sqlite')));
  afterAll(async () => db.destroy());

  const compile = () =>
    Test.createTestingModule({
      imports: [
        typeOrmOnTestDatabase(db),
        EventEmitterModule.forRoot(),
        InvoicePaymentsModule.forRoot({
          gateway: { baseUrl: 'http://127.0.0.1:9', accessToken: SANDBOX_TOKEN, mode: 'sandbox' },
          workers: false,
        }),
      ],
    }).compile();
  const locked = (logger: WarnCollector) => logger.warnings.filter((w) => w.includes('admin API is locked'));

  it('is logged by an HTTP app without an admin key or guard', async () => {
    const logger = new WarnCollector();
    const app = (await compile()).createNestApplication({ logger });
    await app.init();
    await app.close();
    expect(locked(logger)).toHaveLength(1);
  });

  it('is not logged by an application context (no HTTP, no admin route): the Medusa runtime, a CLI', async () => {
    const logger = new WarnCollector();
    const moduleRef = await compile();
    moduleRef.useLogger(logger);
    await moduleRef.init();
    await moduleRef.close();
    expect(locked(logger)).toHaveLength(0);
  });
});
