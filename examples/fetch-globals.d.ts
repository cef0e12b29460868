// The client @hey-api/openapi-ts generates names the DOM's `BodyInit`; Node's fetch types have it
// only as `RequestInit['body']`.
type BodyInit = NonNullable<RequestInit['body']>;
