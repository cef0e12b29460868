export const EVENT_TYPES = [
  'external_revision.staged',
  'external_revision.accepted',
  'external_revision.rejected',
  'external_revision.superseded',
  'document.version_created',
  'document.checked_out',
  'document.checked_in',
  'document.lock_expired',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
