import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { HostDelivery, HostDeliveryOutcome, HostWebhooks } from '../core/ports';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { DeliveryIntake } from './delivery-intake';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import { WebhookInboxProcessor } from './webhook-inbox.processor';

/**
 * {@link HostWebhooks}: a delivery a host received, through the one intake, processed before the answer; the host
 * hears what the service said in the lookup that answered it (never the body), about the record it was applied to.
 */
@Injectable()
export class HostDeliveries implements HostWebhooks {
  constructor(
    private readonly intake: DeliveryIntake,
    private readonly processor: WebhookInboxProcessor,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async settle(delivery: HostDelivery | null | undefined): Promise<HostDeliveryOutcome> {
    const result = await this.intake.accept(
      { headers: delivery?.headers ?? {}, body: bodyOf(delivery) },
      true,
    );
    if (!result.ok) {
      const reason = `${result.status}: ${result.message}`;
      return result.status === 503 ? { kind: 'later', reason } : { kind: 'none', reason };
    }
    const { stored } = result;
    if (!stored.gatewayId) return { kind: 'none', reason: 'the delivery names no invoice' };
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id: stored.id });
    if (entry?.state === 'pending')
      return { kind: 'later', reason: entry.lastError ?? 'the entry is still pending' };
    // The record the inbox applied it to: none for an invoice of no record here, or another's (left alone).
    if (entry?.state !== 'processed' || !entry.invoiceRecordId) {
      return { kind: 'none', reason: entry?.outcome ?? entry?.lastError ?? 'not applied to any record' };
    }
    const record = await this.dataSource
      .getRepository(InvoiceRecord)
      .findOneBy({ id: entry.invoiceRecordId });
    if (!record) return { kind: 'none', reason: `record ${entry.invoiceRecordId} is gone` };
    const answer = this.processor.confirmation.answerOf(stored.gatewayId, entry.receivedAt);
    // Answered in another process (or forgotten): the record holds what that lookup applied.
    const confirmed =
      answer?.recordId === record.id
        ? answer.status
        : { code: record.statusCode ?? -1, paidCents: record.paidCents, grossCents: record.grossCents };
    return { kind: 'applied', record, confirmed };
  }
}

/** The parsed body the host passes, else its raw bytes (the intake parses them, within the size limit). */
function bodyOf(delivery: HostDelivery | null | undefined): unknown {
  const data = delivery?.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length > 0)
    return data;
  const raw = delivery?.rawData;
  if (raw === undefined || raw === null || raw === '') return data ?? null;
  return Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
}
