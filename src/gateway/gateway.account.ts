import { validateInput } from './dto/validate';
import { AuthenticateDto, ResendWebhookDto, ValidateWebhookTokenDto } from './dto/webhook.dto';
import { isGatewayError } from './errors';
import { RequestPlan } from './gateway.transport';
import { readAccessToken, readCredentialStatus, readResendResult } from './response.readers';
import type { AccessToken, CredentialStatus, ResendWebhookResult } from './types';
import { assertResendAllowed } from './webhook-destination';
import { WriteScope } from './wire-profile';
import { renderTemplate } from './wire-template';
import { GatewayCore, unsupported } from './gateway.core';

/** What a credential probe found out about one scope (see `probeScope`). */
export type ScopeProbeResult =
  { result: 'ok' | 'unauthorized' | 'missing_scope' } | { result: 'error'; message: string };

export class GatewayAccount {
  constructor(private readonly core: GatewayCore) {}

  async validateWebhookToken(serviceToken: string): Promise<boolean> {
    const operation = 'validateWebhookToken';
    validateInput(ValidateWebhookTokenDto, { serviceToken }, { operation });
    const { conn, profile } = await this.core.context(operation);
    const answer = await this.core.send(
      {
        operation,
        method: 'OPTIONS',
        path: profile.paths.webhooks,
        body: { token: serviceToken },
        safety: 'read',
        secrets: [serviceToken],
        passStatuses: [404],
      },
      conn,
    );
    return answer.status !== 404;
  }

  async resendWebhook(params: {
    url: string;
    events: string;
    webhook: string;
  }): Promise<ResendWebhookResult> {
    const operation = 'resendWebhook';
    const dto = validateInput(ResendWebhookDto, params, { operation });
    const { conn, profile } = await this.core.context(operation);
    await assertResendAllowed(conn, dto.url, { operation }, this.core.options.lookup);
    const body = { url: dto.url, events: dto.events, webhook: dto.webhook };
    const answer = await this.core.send(
      { operation, method: 'COPY', path: profile.paths.webhooks, body, safety: 'write' },
      conn,
    );
    return this.core.read(operation, undefined, (r) => readResendResult(r, answer.body));
  }

  async authenticate(params: { clientId: string; clientSecret: string }): Promise<AccessToken> {
    const operation = 'authenticate';
    const dto = validateInput(AuthenticateDto, params, { operation });
    const { conn, profile } = await this.core.context(operation, false);
    const auth = profile.authenticate ?? unsupported(operation, 'an authenticate operation');
    const values = { client_id: dto.clientId, client_secret: dto.clientSecret };
    const plan: Omit<RequestPlan, 'timeoutMs'> = {
      operation,
      method: auth.method,
      path: auth.path,
      safety: 'write',
      secrets: [dto.clientSecret],
    };
    if (auth.credentials === 'basic') plan.basic = { user: dto.clientId, password: dto.clientSecret };
    else
      plan.body = renderTemplate(
        auth.body ?? { client_id: '{client_id}', client_secret: '{client_secret}' },
        values,
      );
    const answer = await this.core.send(plan, conn);
    return this.core.read(operation, undefined, (r) => readAccessToken(r, answer.body, auth.answer));
  }

  async credentialStatus(): Promise<CredentialStatus> {
    const operation = 'credentialStatus';
    const { conn, profile } = await this.core.context(operation);
    const status = profile.credentialStatus ?? unsupported(operation, 'a credential-status operation');
    const answer = await this.core.send(
      { operation, method: 'GET', path: status.path, safety: 'read' },
      conn,
    );
    return this.core.read(operation, undefined, (r) => readCredentialStatus(r, answer.body, status.answer));
  }

  async probeScope(scope: WriteScope): Promise<ScopeProbeResult> {
    const operation = 'probeScope';
    const { conn, profile } = await this.core.context(operation);
    const probe = profile.credentialProbes[scope];
    try {
      const answer = await this.core.send(
        { operation, method: probe.method, path: probe.path, body: probe.body, safety: 'write', scope },
        conn,
      );
      return { result: 'error', message: `the service accepted the probe (HTTP ${answer.status})` };
    } catch (err) {
      if (!isGatewayError(err)) throw err;
      if (err.kind === 'validation' && err.sent) return { result: 'ok' };
      if (err.kind === 'authentication') return { result: 'unauthorized' };
      if (err.kind === 'scope') return { result: 'missing_scope' };
      return { result: 'error', message: err.message };
    }
  }
}
