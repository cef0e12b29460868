import { describe, expect, it } from '@jest/globals';
import { checkAgainstDocument, type CheckedExchange } from './support/openapi-check.js';

/**
 * The response checker every `call()` runs (test/support/openapi-check.ts), fed fabricated answers:
 * what breaks the document must fail, what keeps to it must pass. No service: an origin no test
 * server registered is read by its path's prefix.
 */
const ORIGIN = 'http://checker.invalid';

function exchange(x: Partial<CheckedExchange> & { method: string; path: string }): CheckedExchange {
  const body = 'body' in x ? x.body : undefined;
  const text = x.text ?? (body === undefined ? '' : JSON.stringify(body));
  return {
    method: x.method,
    url: `${ORIGIN}${x.path}`,
    requestBody: x.requestBody,
    requestHeaders: x.requestHeaders,
    status: x.status ?? 200,
    headers:
      x.headers ??
      new Headers({
        'x-request-id': 'r-1',
        date: new Date().toUTCString(),
        ...(text === '' ? {} : { 'content-type': 'application/json; charset=utf-8' }),
      }),
    body: body ?? null,
    text,
  };
}

const replay = (body: unknown, status = 200): CheckedExchange =>
  exchange({ method: 'POST', path: '/api/v1/webhook-deliveries/5/replay', status, body });

describe('the OpenAPI response checker', () => {
  it('passes an answer that keeps to the document', () => {
    expect(() => checkAgainstDocument(replay({ deliveryId: 5, status: 'queued' }))).not.toThrow();
  });

  it('fails a planted undocumented field', () => {
    expect(() =>
      checkAgainstDocument(replay({ deliveryId: 5, status: 'queued', colour: 'red' })),
    ).toThrow(/body does not match its schema/);
  });

  it('fails a planted undocumented header, and one that breaks its schema or is missing', () => {
    const withHeaders = (headers: Record<string, string>) => ({
      ...replay({ deliveryId: 5, status: 'queued' }),
      headers: new Headers({ 'content-type': 'application/json', ...headers }),
    });
    const documented = {
      'x-request-id': 'r-1',
      'x-ratelimit-limit-api': '600',
      'x-ratelimit-remaining-api': '599',
      'x-ratelimit-reset-api': '60',
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
    };
    expect(() => checkAgainstDocument(withHeaders(documented))).not.toThrow();
    expect(() => checkAgainstDocument(withHeaders({ ...documented, 'x-powered-by': 'x' }))).toThrow(
      /undocumented POST \S+ 200 header x-powered-by/,
    );
    expect(() =>
      checkAgainstDocument(withHeaders({ ...documented, 'x-ratelimit-remaining-api': 'many' })),
    ).toThrow(/header x-ratelimit-remaining-api does not match/);
    expect(() => checkAgainstDocument(withHeaders({ ...documented, 'x-request-id': '' }))).toThrow(
      /required header x-request-id is missing|header x-request-id does not match/,
    );
    const anonymous: Record<string, string> = { ...documented };
    delete anonymous['x-request-id'];
    expect(() => checkAgainstDocument(withHeaders(anonymous))).toThrow(
      /required header x-request-id is missing/,
    );
  });

  it('fails an undocumented status', () => {
    expect(() => checkAgainstDocument(replay({ deliveryId: 5, status: 'queued' }, 418))).toThrow(
      /undocumented status 418/,
    );
  });

  it('fails an empty body where the document says the answer has one', () => {
    expect(() => checkAgainstDocument(replay(undefined))).toThrow(
      /empty 200 body, documented as application\/json/,
    );
  });

  it('fails a success of a path the document does not list', () => {
    expect(() =>
      checkAgainstDocument(exchange({ method: 'GET', path: '/api/v1/nowhere', body: { a: 1 } })),
    ).toThrow(/an operation the document does not list/);
    expect(() =>
      checkAgainstDocument(
        exchange({ method: 'GET', path: '/platform/v1/nowhere', status: 204, text: '' }),
      ),
    ).toThrow(/an operation the document does not list/);
  });

  it('fails a success of a method the document does not list on a listed path', () => {
    expect(() =>
      checkAgainstDocument(
        exchange({ method: 'DELETE', path: '/api/v1/webhook-deliveries/5', status: 204 }),
      ),
    ).toThrow(/DELETE \/api\/v1\/webhook-deliveries\/5, an operation the document does not list/);
  });

  describe('a validation_failed refusal', () => {
    const refusal = (field: string, message: string) => ({
      type: 'urn:problem:validation_failed',
      title: 'Validation failed',
      status: 400,
      detail: `${field}: ${message}`,
      code: 'validation_failed',
      request_id: 'r-1',
      errors: [{ field, message }],
    });
    const list = (query: string, field: string, message: string) =>
      exchange({
        method: 'GET',
        path: `/api/v1/webhook-deliveries${query}`,
        status: 400,
        headers: new Headers({ 'content-type': 'application/problem+json', 'x-request-id': 'r-1' }),
        body: refusal(field, message),
      });

    it('fails when the document accepts the request', () => {
      expect(() =>
        checkAgainstDocument(list('?limit=100', 'limit', 'must not be greater than 99')),
      ).toThrow(/refused as validation_failed a request the document accepts/);
    });

    it('passes when the document refuses it too', () => {
      for (const query of ['?limit=101', '?limit=0', '?limit=1.5', '?status=lost']) {
        expect(() => checkAgainstDocument(list(query, 'limit', 'whatever'))).not.toThrow();
      }
    });

    it('passes a refusal no schema can express', () => {
      expect(() =>
        checkAgainstDocument(list('?cursor=abc', 'cursor', 'is not a cursor of this list (…)')),
      ).not.toThrow();
    });
  });

  it('leaves alone the refusal of an unknown route, the document itself and paths outside it', () => {
    const problem = { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' };
    for (const x of [
      exchange({ method: 'GET', path: '/api/v1/nowhere', status: 404, body: problem }),
      exchange({ method: 'GET', path: '/api/v1/openapi.json', body: { openapi: '3.1.0' } }),
      exchange({ method: 'GET', path: '/health/live', body: { status: 'ok' } }),
    ]) {
      expect(() => checkAgainstDocument(x)).not.toThrow();
    }
  });
});
