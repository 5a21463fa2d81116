import type { DataSourceOptions } from 'typeorm';
import { InvoicePaymentsModule } from '../../src/index';
import { openCheckoutDatabase } from '../checkout/support';
import { sandboxGateway, startHostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';

/** A store on a database the module has no SQL for does not start; the error names the type and the ones it takes. */
describeEachDatabase('a database type the module does not support', (kind) => {
  let db: TestDatabase;
  beforeAll(async () => (db = await openCheckoutDatabase(kind)));
  afterAll(async () => db.destroy());

  it('is refused at start, naming the type and the supported ones', async () => {
    const real = db.dataSource.options;
    // The connection is this test's database; only the type it reports is one the module does not know.
    Object.defineProperty(db.dataSource, 'options', {
      value: { ...real, type: 'mysql' } as DataSourceOptions,
    });
    try {
      const start = startHostApp(db, [
        InvoicePaymentsModule.forRoot({ gateway: sandboxGateway('http://127.0.0.1:9') }),
      ]);
      await expect(start).rejects.toThrow(
        'InvoicePaymentsModule: database type "mysql" is not supported; use one of: postgres, better-sqlite3, sqljs',
      );
    } finally {
      Object.defineProperty(db.dataSource, 'options', { value: real });
    }
  });

  it('starts on its own type', async () => {
    const host = await startHostApp(db, [
      InvoicePaymentsModule.forRoot({ gateway: sandboxGateway('http://127.0.0.1:9'), workers: false }),
    ]);
    await host.close();
  });
});
