import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, Matches } from 'class-validator';
import { PageQueryDto } from './admin.dto';

/** Query of `GET /webhooks/inbox`: without `state`, the entries that need attention (pending and dead). */
export class InboxQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(['pending', 'dead', 'processed', 'ignored'], {
    message: 'state must be pending, dead, processed or ignored',
  })
  state?: 'pending' | 'dead' | 'processed' | 'ignored';
}

/** Query of `GET /tracking/outbox`: without `status`, the codes waiting or failed. */
export class OutboxQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(['pending', 'sent', 'failed', 'superseded'], {
    message: 'status must be pending, sent, failed or superseded',
  })
  status?: 'pending' | 'sent' | 'failed' | 'superseded';
}

/** Query of `GET /alerts`. */
export class AlertsQueryDto extends PageQueryDto {
  /** `true`: not acknowledged yet; `false`: acknowledged; absent: all. */
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'open must be true or false' })
  open?: boolean;

  @IsOptional()
  @Matches(/^[a-z_]{1,32}$/, { message: 'kind must be an alert kind such as amount_mismatch' })
  kind?: string;
}
