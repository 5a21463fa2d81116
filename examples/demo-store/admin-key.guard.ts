import { CanActivate, ExecutionContext, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';

/** Injection token of the store's admin key. */
export const DEMO_ADMIN_KEY = Symbol('DEMO_ADMIN_KEY');

/**
 * The store's admin endpoints need `Authorization: Bearer <admin key>`, the same key the module's admin API takes.
 * A real store puts its own staff authentication here.
 */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(DEMO_ADMIN_KEY) adminKey: string) {
    this.expected = digest(adminKey);
  }

  canActivate(context: ExecutionContext): boolean {
    const header =
      context.switchToHttp().getRequest<{ headers: { authorization?: string } }>().headers.authorization ??
      '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    // Comparing digests keeps the comparison constant-time whatever the length of what was sent.
    if (!match || !timingSafeEqual(digest(match[1]), this.expected)) {
      throw new UnauthorizedException('admin endpoints need Authorization: Bearer <admin key>');
    }
    return true;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
