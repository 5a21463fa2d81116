import type { ServerResponse } from 'node:http';
import type { IntakeResult } from './delivery-intake';

/** The 200 answer to a delivery. */
export interface WebhookReceipt {
  received: true;
  /** Inbox entry id. */
  id: string;
  /** The delivery was already in the inbox (a retry or a duplicate): nothing new happens. */
  duplicate: boolean;
  state: 'pending' | 'processed' | 'ignored';
}

/** The body of a refusal, shaped as Nest's own HTTP exceptions answer. */
export interface WebhookRefusal {
  statusCode: number;
  message: string;
  error?: string;
}

/** What the route answers to a delivery, whichever part of the host writes it. */
export type DeliveryAnswer =
  | { status: 200; body: WebhookReceipt }
  | { status: number; body: WebhookRefusal; retryAfterSeconds?: number };

/** The `error` of each refusal, as Nest's own exceptions name it. */
const ERROR_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The one mapping of an intake's outcome to the route's answer. */
export function answerOf(result: IntakeResult): DeliveryAnswer {
  if (!result.ok) {
    // A body refused before it was read (size, encoding, stream) is answered without the error's name.
    const error = result.unread ? {} : { error: ERROR_NAMES[result.status] };
    return {
      status: result.status,
      body: { statusCode: result.status, message: result.message, ...error },
      retryAfterSeconds: result.retryAfterSeconds,
    };
  }
  const { stored } = result;
  return {
    status: 200,
    body: {
      received: true,
      id: stored.id,
      duplicate: stored.duplicate,
      state: stored.state as WebhookReceipt['state'],
    },
  };
}

/** The answer to a delivery whose intake failed unexpectedly (the database is down): the service retries it. */
export const INTERNAL_ERROR_ANSWER: DeliveryAnswer = {
  status: 500,
  body: { statusCode: 500, message: 'Internal server error' },
};

/**
 * Writes an answer on the raw response, as Express' `res.json` would: every answer of the route, errors included,
 * is JSON that no browser may sniff into something else.
 */
export function writeAnswer(res: ServerResponse, answer: DeliveryAnswer): void {
  const payload = JSON.stringify(answer.body);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'X-Content-Type-Options': 'nosniff',
  };
  if ('retryAfterSeconds' in answer && answer.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(answer.retryAfterSeconds);
  res.writeHead(answer.status, headers);
  res.end(payload);
}
