import { traceHooks } from '../../../common/tracing/trace-hooks.js';
import type { ClaimedRow } from '../repository/delivery-claims.repository.js';
import type { AttemptResult } from './webhook-sender.js';

/**
 * One delivery attempt as a span (tracing on): a child of the trace that published the event,
 * linked to it, with the attempt's outcome. The send runs inside it, so the HTTP client span of
 * the request (undici's instrumentation) is its child and the receiver gets that `traceparent`.
 * Without tracing it only calls `send`.
 */
export function traceDeliveryAttempt(
  row: ClaimedRow,
  send: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
  const hooks = traceHooks();
  if (!hooks) return send();
  return hooks.inLinkedSpan(
    'webhook delivery attempt',
    row.trace_parent,
    {
      'messaging.system': 'webhook',
      'messaging.operation.type': 'send',
      'messaging.message.id': row.event_id,
      'webhook.delivery.id': row.id,
      'webhook.id': row.webhook_id,
      'webhook.attempt': row.attempts + 1,
    },
    send,
    (result) => ({
      attributes: {
        'webhook.outcome': result.outcome,
        ...(result.statusCode === null ? {} : { 'http.response.status_code': result.statusCode }),
      },
      failed: result.outcome !== 'succeeded',
      ...(result.error ? { message: result.error } : {}),
    }),
  );
}
