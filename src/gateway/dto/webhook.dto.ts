import { IsHttpUrl, IsRequiredText } from './validators';

/** `validateWebhookToken` input (§4.7). */
export class ValidateWebhookTokenDto {
  @IsRequiredText() serviceToken!: string;
}

/** `resendWebhook` input (§4.8). */
export class ResendWebhookDto {
  @IsHttpUrl() url!: string;
  @IsRequiredText() events!: string;
  @IsRequiredText() webhook!: string;
}

/** `authenticate` input (A5). */
export class AuthenticateDto {
  @IsRequiredText() clientId!: string;
  @IsRequiredText() clientSecret!: string;
}
