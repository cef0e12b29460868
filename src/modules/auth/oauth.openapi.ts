// The OpenAPI text of oauth.controller.ts: one composed decorator per handler,
// `OAuthDocs.<handler>()`, built with Nest's applyDecorators and written last above the
// handler, so the controller keeps only routing and behaviour. applyDecorators applies in the
// order written (stacked decorators apply bottom-up): headers and parameters reach the document
// in this order. Convention: docs/contributors/architecture.md#inside-a-module.
import { applyDecorators } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { OAuthErrorResponse, OAuthTokenResponse } from './dto/token.response.js';
import { OAuthTokenRequest } from './dto/token.request.js';

const CLIENT_ID = 'gci_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM';

const CLIENT_SECRET = 'gcs_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM';

const oauthError = (error: string, error_description: string) => ({
  summary: error_description,
  value: { error, error_description },
});

/** The OpenAPI text of each route of OAuthController, one composed decorator per handler. */
export const OAuthDocs = {
  token: () =>
    applyDecorators(
      ApiOperation({
        summary: 'Obtain a bearer token (OAuth 2.0 client credentials)',
        description:
          'RFC 6749 §4.4. The client authenticates with HTTP Basic (`client_secret_basic`: id and ' +
          'secret form-urlencoded, joined by `:`, base64) or with `client_id` and `client_secret` in the ' +
          'body (`client_secret_post`), never both. The body may be `application/x-www-form-urlencoded` ' +
          '(what OAuth libraries and the **Authorize** button send) or `application/json`. Unknown ' +
          'parameters are ignored, parameters without a value count as omitted. `ttl` (seconds, ' +
          '300..86400, default 3600) sets the lifetime; `scope` narrows the token to some of the ' +
          "client's scopes. The request is checked in this order: client authentication method " +
          '(`invalid_request`), `grant_type`, `ttl`, client credentials and IP allowlist ' +
          '(`invalid_client`), `scope` (`invalid_scope`). Errors are RFC 6749 §5.2 bodies, not ' +
          'problem details. Responses are never cached.',
      }),
      ApiConsumes('application/x-www-form-urlencoded', 'application/json'),
      ApiBody({
        type: OAuthTokenRequest,
        examples: {
          body_credentials: {
            summary: 'Client credentials in the body',
            value: {
              grant_type: 'client_credentials',
              client_id: CLIENT_ID,
              client_secret: CLIENT_SECRET,
              ttl: 3600,
            },
          },
          basic_narrowed: {
            summary: 'With HTTP Basic client authentication, narrowed to two scopes',
            value: { grant_type: 'client_credentials', scope: 'projects:read documents:read' },
          },
        },
      }),
      ApiOkResponse({
        description: 'Token issued. `Cache-Control: no-store`, `Pragma: no-cache`.',
        type: OAuthTokenResponse,
      }),
      ApiBadRequestResponse({
        description:
          '`invalid_request` (missing `grant_type`, `ttl` not an integer in 300..86400, a parameter ' +
          'repeated or not a string, HTTP Basic together with a body `client_secret`), ' +
          '`unsupported_grant_type`, `invalid_scope` (a requested scope the client does not have: ' +
          'the request is refused, never narrowed silently).',
        type: OAuthErrorResponse,
        examples: {
          invalid_request: oauthError(
            'invalid_request',
            'ttl must be an integer between 300 and 86400',
          ),
          unsupported_grant_type: oauthError(
            'unsupported_grant_type',
            'the only supported grant_type is client_credentials',
          ),
          invalid_scope: oauthError(
            'invalid_scope',
            'scope not granted to this client: webhooks:write',
          ),
        },
      }),
      ApiUnauthorizedResponse({
        description:
          '`invalid_client`: unknown client, wrong or missing secret, disabled client, or a request ' +
          "from an address outside the client's IP allowlist (one answer for all). With " +
          '`WWW-Authenticate: Basic realm="api"` when the client used HTTP Basic.',
        type: OAuthErrorResponse,
        headers: {
          'WWW-Authenticate': {
            description: 'Only when the client authenticated with HTTP Basic.',
            schema: { type: 'string', example: 'Basic realm="api"' },
          },
        },
        example: { error: 'invalid_client', error_description: 'client authentication failed' },
      }),
      ApiResponse({
        status: 413,
        description:
          '`invalid_request`: the body exceeds 16 KiB (or the `BODY_LIMIT` of the server if smaller), ' +
          'or a compressed body expands past it or to more than 50 times its size.',
        type: OAuthErrorResponse,
        example: { error: 'invalid_request', error_description: 'the request body is too large' },
      }),
      ApiResponse({
        status: 415,
        description:
          '`invalid_request`: the body is neither `application/x-www-form-urlencoded` nor ' +
          '`application/json`, or not UTF-8.',
        type: OAuthErrorResponse,
        example: { error: 'invalid_request', error_description: 'unsupported media type' },
      }),
      ApiResponse({
        status: 429,
        description:
          '`rate_limited`: too many token requests for this client id from this address, or too many ' +
          'failed client authentications from this address whatever client ids they named (then ' +
          'every token request from it, until the window ends); wait the `Retry-After` seconds.',
        type: OAuthErrorResponse,
        headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'string' } } },
        example: { error: 'rate_limited', error_description: 'rate limit exceeded; retry in 12 s' },
      }),
      ApiResponse({
        status: 500,
        description: '`server_error`: unexpected; the body carries no internals.',
        type: OAuthErrorResponse,
        example: { error: 'server_error', error_description: 'an unexpected error occurred' },
      }),
    ),
};
