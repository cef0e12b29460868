import { AppError } from '../../common/http/app-error.js';

export class WebhookRevokedError extends AppError {
  readonly code = 'webhook_revoked';
  constructor() {
    super('the webhook is revoked; revocation is final');
  }
}

export class DeliveryNotReplayableError extends AppError {
  readonly code = 'delivery_not_replayable';
  constructor(status: string) {
    super(`only a failed or retry delivery can be replayed (this one is ${status})`);
  }
}

export class WebhookLimitReachedError extends AppError {
  readonly code = 'webhook_limit_reached';
  constructor(limit: number) {
    super(
      `the tenant already has ${limit} webhooks that are not revoked (the limit); revoke one first`,
    );
  }
}
