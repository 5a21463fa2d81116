import { BadRequestException, PipeTransform } from '@nestjs/common';
import { idProblem } from '../../src/domain/text-and-days';

/** An id from the path, checked before it reaches SQL (a NUL byte makes PostgreSQL fail): 400 naming `id`. */
export class IdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    const problem = idProblem(value);
    if (problem)
      throw new BadRequestException({ statusCode: 400, error: 'Bad Request', message: `id ${problem}` });
    return value as string;
  }
}
