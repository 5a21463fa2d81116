import { EventEmitter2 } from '@nestjs/event-emitter';
import type { DataSource } from 'typeorm';
import { ManualClock } from '../support/clock';
import { DatabaseKind, openTestDatabase, TestDatabase } from '../support/databases';
import { InvoicePaymentsAlert, InvoicePaymentsEvents } from '../../src/core/events';
import { InvoiceStatusService } from '../../src/core/invoice-status.service';
import type { OrderPaymentPort, PaymentStatusChange } from '../../src/core/ports';
import {
  resolveNotificationsOptions,
  StatusChangeDispatcher,
} from '../../src/core/status-dispatcher.service';
import type { Invoice } from '../../src/gateway/types';
import { InvoiceRecord, InvoiceStatusHistory } from '../../src/persistence/invoice.entity';

/** The status path's parts on a DataSource, with a recording port and bus (the status suites share it). */
export const entities = [InvoiceRecord, InvoiceStatusHistory];

export class RecordingPort implements OrderPaymentPort {
  down = false;
  /** `changes` may be one list shared by several instances' ports: it then holds their real order of delivery. */
  constructor(readonly changes: PaymentStatusChange[] = []) {}
  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    if (this.down) throw new Error('host database is down');
    this.changes.push(change);
  }
}

export interface Harness {
  service: InvoiceStatusService;
  dispatcher: StatusChangeDispatcher;
  port: RecordingPort;
  busChanges: PaymentStatusChange[];
  alerts: InvoicePaymentsAlert[];
  /** The parts' clock: a retry's backoff passes when the test moves it. */
  clock: ManualClock;
}

export function harness(ds: DataSource, withPort = true, shared?: PaymentStatusChange[]): Harness {
  const events = new EventEmitter2();
  const busChanges: PaymentStatusChange[] = [];
  const alerts: InvoicePaymentsAlert[] = [];
  events.on(InvoicePaymentsEvents.StatusChanged, (c: PaymentStatusChange) => busChanges.push(c));
  events.on(InvoicePaymentsEvents.Alert, (a: InvoicePaymentsAlert) => alerts.push(a));
  const port = new RecordingPort(shared);
  const clock = new ManualClock();
  const options = resolveNotificationsOptions({
    pollIntervalMs: 0,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 100,
  });
  const dispatcher = new StatusChangeDispatcher(ds, events, clock, options, withPort ? port : null);
  const service = new InvoiceStatusService(ds, dispatcher, events, clock);
  return { service, dispatcher, port, busChanges, alerts, clock };
}

export function paidInvoice(gatewayId: string): Invoice {
  return {
    id: gatewayId,
    uuid: 'uuid-1',
    invoiceId: 'inv-1',
    token: null,
    referrer: null,
    currency: 'BRL',
    status: { code: 5, text: 'paid', subText: null, title: null, description: null },
    method: 'pix',
    amounts: {
      grossCents: 10_050,
      netCents: 9_900,
      feesCents: 150,
      discountCents: 0,
      shippingCents: 1_000,
      paidCents: 10_050,
    },
    pix: { image: 'https://qr.example/1.png', payload: '000201...', status: 'paid', endToEndId: 'E1' },
    billet: null,
    card: null,
    installments: 1,
    dueDate: '2026-12-01',
    originalDueDate: '2026-12-01',
    createdAt: '2026-11-21 10:00:00',
    paymentUrl: 'https://pay.example/1',
    refunds: { possible: true, totalCents: null, date: null },
    source: { shape: 'current', version: '3.1' },
    raw: { id: gatewayId, marker: 'raw-paid' },
  };
}

export async function historyOf(ds: DataSource, recordId: string): Promise<InvoiceStatusHistory[]> {
  return ds.getRepository(InvoiceStatusHistory).find({
    where: { invoiceRecordId: recordId },
    order: { createdAt: 'ASC' },
  });
}

/** The suite's database of `kind` (opened once) and a fresh harness for each test, read as `suite.ds`, `suite.h`. */
export function statusSuite(kind: DatabaseKind): { db: TestDatabase; ds: DataSource; h: Harness } {
  const suite = {} as { db: TestDatabase; ds: DataSource; h: Harness };
  beforeAll(async () => {
    suite.db = await openTestDatabase(kind, { entities, synchronize: true });
    suite.ds = suite.db.dataSource;
  });
  afterAll(async () => suite.db.destroy());
  beforeEach(() => {
    suite.h = harness(suite.ds);
  });
  afterEach(async () => suite.h.dispatcher.onModuleDestroy());
  return suite;
}

/** The service's guarded statement, private: watched through its prototype. */
type GuardedWriter = { writeGuarded(): Promise<boolean> };

/**
 * Watches `InvoiceStatusService`'s one guarded statement in each test of the calling suite: `calls` is its spy,
 * `statements()` what each call answered (`true` when it wrote).
 */
export function watchGuardedStatements() {
  const watch = { calls: undefined as unknown as jest.SpyInstance, statements: async () => [] as boolean[] };
  beforeEach(() => {
    watch.calls = jest.spyOn(InvoiceStatusService.prototype as unknown as GuardedWriter, 'writeGuarded');
  });
  afterEach(() => watch.calls.mockRestore());
  watch.statements = () => Promise.all(watch.calls.mock.results.map((r) => r.value as Promise<boolean>));
  return watch;
}
