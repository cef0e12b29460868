import { ValidationFailedError } from '../../common/http/app-error.js';

/**
 * `value` if it may be a webhook's `endpoint_url`: an absolute https URL (http too when
 * `allowHttp`), with a host, without user information, port 0 or whitespace, written in the one
 * shape every URL parser reads alike; else a 400 on the field.
 */
export function validEndpointUrl(value: string, allowHttp: boolean): string {
  const refuse = (message: string): never => {
    throw new ValidationFailedError([{ field: 'endpoint_url', message }]);
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse('endpoint_url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    refuse(
      allowHttp ? 'endpoint_url must be an http or https URL' : 'endpoint_url must be an https URL',
    );
  }
  if (url.username !== '' || url.password !== '') {
    refuse('endpoint_url must not contain user information');
  }
  if (url.hostname === '') refuse('endpoint_url must have a host');
  // no connection can be made to port 0
  if (url.port === '0') refuse('endpoint_url must not name port 0');
  if (/\s/.test(value)) refuse('endpoint_url must not contain whitespace');
  // The URL is stored and shown as sent, so it must mean one thing to every reader: the WHATWG
  // parser (ours) reads `https://example.com\@evil.com/` as example.com and `https://:@host/` as
  // having no user information, where an RFC 3986 reader (a receiver's log, an integrator's UI)
  // sees evil.com, or user information. Refused: a backslash, a scheme not followed by `//` and
  // the host, and any `@` before the path.
  if (value.includes('\\')) refuse('endpoint_url must not contain a backslash');
  // control characters are dropped or rewritten by the parser, never delivered as written
  const control = (c: string): boolean => c.charCodeAt(0) < 0x20 || c === '\u007f';
  if ([...value].some(control)) refuse('endpoint_url must not contain control characters');
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(value)?.[1];
  if (!authority) return refuse('endpoint_url must be written scheme://host/…');
  if (authority.includes('@')) refuse('endpoint_url must not contain user information');
  // a percent-encoded host is decoded into another name (`a.example%2eevil.example`)
  if (authority.includes('%')) refuse('endpoint_url must not percent-encode its host');
  return value;
}
