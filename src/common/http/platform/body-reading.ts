import type { ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { bodyRateOf } from '../body-rate.js';
import { jsonLimitsOf } from '../json-limits.js';
import { closeAfterResponse, whenResponseClosed } from '../lingering-close.js';
import type { BodyReading } from '../request-body.js';

/**
 * What a body is read with on either adapter, whichever reads it: the service's limits, and the
 * Node response `response` (closed after the answer, watched for its end, sent `100 Continue`).
 */
export function bodyTermsOf(
  config: AppConfig,
  response: ServerResponse,
): Pick<
  BodyReading,
  'limit' | 'rate' | 'jsonLimits' | 'closeAfterResponse' | 'onResponseClosed' | 'response'
> {
  return {
    limit: config.BODY_LIMIT,
    rate: bodyRateOf(config),
    jsonLimits: jsonLimitsOf(config),
    closeAfterResponse: () => closeAfterResponse(response),
    onResponseClosed: (listener) => whenResponseClosed(response, listener),
    response,
  };
}
