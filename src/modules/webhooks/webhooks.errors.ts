import { AppError } from '../../common/http/app-error.js';

export class WebhookRevokedError extends AppError {
  readonly status = 409;
  readonly code = 'webhook_revoked';
  readonly title = 'Webhook revoked';
  constructor() {
    super('the webhook is revoked; revocation is final');
  }
}

export class DeliveryNotReplayableError extends AppError {
  readonly status = 409;
  readonly code = 'delivery_not_replayable';
  readonly title = 'Delivery not replayable';
  constructor(status: string) {
    super(`only a failed or retry delivery can be replayed (this one is ${status})`);
  }
}

export class WebhookLimitReachedError extends AppError {
  readonly status = 409;
  readonly code = 'webhook_limit_reached';
  readonly title = 'Webhook limit reached';
  constructor(limit: number) {
    super(
      `the tenant already has ${limit} webhooks that are not revoked (the limit); revoke one first`,
    );
  }
}
