import { Injectable, Logger } from '@nestjs/common';
import { OPERATION_SCOPES } from '../gateway/error.mapper';
import { GatewayScopeError, isGatewayError } from '../gateway/errors';
import { GatewayClient, ScopeProbeResult } from '../gateway/gateway.client';
import type { WriteScope } from '../gateway/wire-profile';
import { InvoicePaymentsSettingsService } from './settings.service';

/** What the credential check says of one operation of the service. */
export interface CredentialCheckOperation {
  operation: string;
  /** `null` for the credential status itself. */
  scope: string | null;
  result: 'ok' | 'unauthorized' | 'missing_scope' | 'error' | 'not_available';
  /** `scopes`: judged from the reported scope list; `probe`: by the wire profile's invalid request for the scope. */
  checkedBy: 'call' | 'scopes' | 'probe';
  message?: string;
}

/** `scopes`: `null` when they could not be read. */
export type CredentialCheckReport = Awaited<ReturnType<CredentialCheckService['check']>>;

/** Read-only operations, called for real (one item asked). */
const CALLED = ['listInvoices', 'listConsumers', 'listMediations', 'listChargebacks'] as const;

/** Never called (a creation or a refund cannot be taken back): judged from the reported scopes, or probed. */
const JUDGED = ['createInvoice', 'changeDueDate', 'cancelInvoice', 'addTrackingCode', 'refundInvoice'];

/** Checks the saved credentials against the service, operation by operation. */
@Injectable()
export class CredentialCheckService {
  private readonly logger = new Logger('InvoicePaymentsAdmin');

  constructor(
    private readonly client: GatewayClient,
    private readonly settings: InvoicePaymentsSettingsService,
  ) {}

  async check() {
    // Another instance may have just saved.
    this.settings.invalidate();
    const { baseUrl, mode } = await this.settings.getEffective();
    const operations: CredentialCheckOperation[] = [];

    let scopes: string[] | null = null;
    try {
      scopes = (await this.client.credentialStatus()).scopes;
      operations.push({ operation: 'credentialStatus', scope: null, result: 'ok', checkedBy: 'call' });
    } catch (err) {
      const failed = failure('credentialStatus', null, err);
      const missing = isGatewayError(err) && (err.kind === 'unsupported' || err.kind === 'not_found');
      const message = 'the service has no credential-status operation: write scopes are probed';
      operations.push(missing ? { ...failed, result: 'not_available', message } : failed);
    }

    for (const operation of CALLED) {
      const scope = OPERATION_SCOPES[operation] ?? null;
      try {
        await this.client[operation]({ limit: 1 });
        operations.push({ operation, scope, result: 'ok', checkedBy: 'call' });
      } catch (err) {
        operations.push(failure(operation, scope, err));
      }
    }

    const granted = scopes !== null && scopes.length > 0 ? scopes : null;
    const probes = new Map<WriteScope, Promise<ScopeProbeResult>>();
    for (const operation of JUDGED) {
      const scope = OPERATION_SCOPES[operation] as WriteScope;
      if (granted) {
        const result = granted.includes(scope) ? 'ok' : 'missing_scope';
        operations.push({ operation, scope, result, checkedBy: 'scopes' });
        continue;
      }
      if (!probes.has(scope)) probes.set(scope, this.client.probeScope(scope));
      operations.push({ operation, scope, checkedBy: 'probe', ...(await probes.get(scope)!) });
    }

    const ok = operations.every((o) => o.result === 'ok' || o.result === 'not_available');
    const summary = operations.map((o) => `${o.operation}=${o.result}`).join(' ');
    this.logger.log(`credential check (${mode}): ${ok ? 'ok' : 'problems'}: ${summary}`);
    return { ok, mode, baseUrl: baseUrl ?? '', scopes, operations };
  }
}

function failure(operation: string, scope: string | null, err: unknown): CredentialCheckOperation {
  if (isGatewayError(err) && err.kind === 'authentication') {
    return { operation, scope, result: 'unauthorized', checkedBy: 'call' };
  }
  if (err instanceof GatewayScopeError) {
    return { operation, scope: err.scope ?? scope, result: 'missing_scope', checkedBy: 'call' };
  }
  // Gateway errors are scrubbed of secrets; anything else by name only.
  const message = isGatewayError(err) ? err.message : err instanceof Error ? err.name : 'unknown error';
  return { operation, scope, result: 'error', checkedBy: 'call', message };
}
