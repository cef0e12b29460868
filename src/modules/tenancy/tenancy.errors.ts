import { AppError } from '../../common/http/app-error.js';

export class EntitlementRequiredError extends AppError {
  readonly code = 'entitlement_required';
  constructor(entitlement: string) {
    super(`the tenant's plan does not include ${entitlement}`);
    this.extensions['entitlement'] = entitlement;
  }
}
