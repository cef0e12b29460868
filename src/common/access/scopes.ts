import { SCOPES } from './scope-list.cjs';

export { SCOPES };
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
