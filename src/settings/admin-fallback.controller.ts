import { All, Controller, NotFoundException, Type, UseFilters, UseGuards } from '@nestjs/common';
import { AdminErrorsFilter } from './admin-errors.filter';
import { InvoicePaymentsAdminGuard } from './admin.guard';

/**
 * Every other path under the admin prefix: guarded like the API, so without a valid key an unknown route answers
 * 401 exactly as a known one does (the routes cannot be listed by probing), and with a key a plain 404 that does
 * not repeat the path.
 */
@UseGuards(InvoicePaymentsAdminGuard)
@UseFilters(AdminErrorsFilter)
export class InvoicePaymentsAdminFallbackController {
  @All(['/', '*path'])
  notFound(): never {
    throw new NotFoundException({ statusCode: 404, error: 'Not Found', message: 'no such admin route' });
  }
}

/**
 * The fallback mounted at `prefix`. Register it after every other controller under the prefix: routes match in the
 * order they are registered.
 */
export function createAdminFallbackController(prefix: string): Type<InvoicePaymentsAdminFallbackController> {
  @Controller(prefix.replace(/^\/+|\/+$/g, ''))
  class PrefixedInvoicePaymentsAdminFallbackController extends InvoicePaymentsAdminFallbackController {}
  return PrefixedInvoicePaymentsAdminFallbackController;
}
