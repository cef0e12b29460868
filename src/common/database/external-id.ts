/**
 * The host platform's own id of a project, document or file (`external_id`): 1 to 200 characters
 * of `A-Z a-z 0-9 . _ : -`, unique per tenant and kind. The migration's CHECK holds the same rule.
 */
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;
export const EXTERNAL_ID_MAX = 200;
/** The CHECK of the `external_id` columns (migration 1764003300000), as the entities declare it. */
export const EXTERNAL_ID_CHECK = "external_id ~ '^[A-Za-z0-9._:-]{1,200}$'";

export function isExternalId(value: unknown): value is string {
  return typeof value === 'string' && EXTERNAL_ID_PATTERN.test(value);
}
