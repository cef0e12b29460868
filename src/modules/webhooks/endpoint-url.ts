import { ValidationFailedError } from '../../common/http/app-error.js';

/**
 * `value` if it may be a webhook's `endpoint_url`: an absolute https URL (http too when
 * `allowHttp`), with a host, without user information, port 0 or whitespace; else a 400 on the
 * field.
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
  return value;
}
