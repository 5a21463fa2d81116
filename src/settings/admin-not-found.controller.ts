import { All, NotFoundException } from '@nestjs/common';
import { AdminApi } from './admin-api';

/**
 * Every other admin path: guarded, so probing cannot list the routes; a 404 that does not repeat the path. Mounted
 * after the other admin controllers, since routes match in the order they are registered.
 */
@AdminApi()
export class AdminNotFoundController {
  @All(['/', '*path'])
  notFound(): never {
    throw new NotFoundException({ statusCode: 404, error: 'Not Found', message: 'no such admin route' });
  }
}
