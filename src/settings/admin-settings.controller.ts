import { Body, ConflictException, Get, HttpCode, Inject, Post, Put } from '@nestjs/common';
import { GatewayClient } from '../gateway/gateway.client';
import { GATEWAY_CLIENT_OPTIONS, type GatewayClientOptions } from '../gateway/gateway.options';
import { AdminApi } from './admin-api';
import { ResendWebhookDto } from './admin.dto';
import { CredentialCheckService } from './credential-check.service';
import { SecretBox } from './secret-box';
import { maskSettings, saveSettings, settingFields, UpdateSettingsDto } from './settings.dto';
import { InvoicePaymentsSettingsService } from './settings.service';

/** The admin API's Settings tab: the settings (secrets masked), their rotation, a credential check, a test webhook. */
@AdminApi()
export class AdminSettingsController {
  constructor(
    private readonly settings: InvoicePaymentsSettingsService,
    private readonly credentials: CredentialCheckService,
    private readonly client: GatewayClient,
    private readonly box: SecretBox,
    @Inject(GATEWAY_CLIENT_OPTIONS) private readonly gatewayOptions: GatewayClientOptions,
  ) {}

  @Get('settings')
  async getSettings() {
    return maskSettings(await this.settings.getEffective());
  }

  @Get('settings/fields')
  getSettingFields() {
    return settingFields();
  }

  @Put('settings')
  putSettings(@Body() body: UpdateSettingsDto) {
    return saveSettings({ settings: this.settings, box: this.box, lookup: this.gatewayOptions.lookup }, body);
  }

  @Post('settings/rotate-secrets')
  @HttpCode(200)
  rotateSecrets() {
    return this.settings.rotateSecrets();
  }

  @Post('credentials/check')
  @HttpCode(200)
  checkCredentials() {
    return this.credentials.check();
  }

  /** Spec §4.8; refused in production mode. */
  @Post('webhooks/resend')
  @HttpCode(200)
  async resendWebhook(@Body() body: ResendWebhookDto) {
    const { mode } = await this.settings.getEffective();
    if (mode === 'production') {
      throw new ConflictException(
        'resend webhook is refused in production mode: the service blocklists production callers (spec §6.6)',
      );
    }
    return this.client.resendWebhook({
      url: body.url,
      events: body.events ?? 'invoice.update',
      webhook: body.webhook ?? 'default',
    });
  }
}
