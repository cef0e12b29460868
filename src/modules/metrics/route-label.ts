/**
 * The label of a request's series: its route pattern (HttpPlatform.routeOf), never the raw path:
 * ids in labels would explode the series count. Unmatched paths are one series.
 */
export function routeLabel(pattern: string | undefined): string {
  return pattern ?? 'unmatched';
}
