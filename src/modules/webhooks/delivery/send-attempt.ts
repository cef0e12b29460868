import type { Logger } from '@nestjs/common';
import type { SecretBox } from '../../../common/crypto/secret-box.js';
import type { ClaimedRow } from '../repository/delivery-claims.repository.js';
import type { AttemptResult, WebhookSender } from './webhook-sender.js';
import { traceDeliveryAttempt } from './delivery-tracing.js';

/**
 * One attempt at `row`, signed with its secrets (the replaced one too, during its grace). An
 * unexpected error is a failed attempt, logged by name only; the sender's detail for an
 * unreachable destination goes to the log, never into `last_error`.
 */
export async function sendAttempt(
  sender: WebhookSender,
  secretBox: SecretBox,
  logger: Logger,
  row: ClaimedRow,
  attemptedAt: Date,
): Promise<AttemptResult> {
  let result: AttemptResult;
  try {
    result = await traceDeliveryAttempt(row, () =>
      sender.send({
        url: row.endpoint_url,
        secret: secretBox.open(row.secret_sealed),
        previousSecret: row.previous_secret_sealed && secretBox.open(row.previous_secret_sealed),
        eventId: row.event_id,
        body: row.body,
        timestamp: attemptedAt,
      }),
    );
  } catch (error) {
    logger.error(`webhook delivery ${row.id} failed unexpectedly: ${(error as Error).name}`);
    result = {
      outcome: 'failed',
      statusCode: null,
      error: 'internal error',
      durationMs: Date.now() - attemptedAt.getTime(),
      retryAfterMs: null,
    };
  }
  if (result.logDetail) {
    // kept from `last_error`, which the webhook's owner reads (see DESTINATION_UNAVAILABLE_MESSAGE)
    logger.warn(`webhook delivery ${row.id}: ${result.error} (${result.logDetail})`);
  }
  return result;
}
