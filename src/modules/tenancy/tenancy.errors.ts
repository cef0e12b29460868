import { AppError } from '../../common/http/app-error.js';

export class EntitlementRequiredError extends AppError {
  readonly status = 403;
  readonly code = 'entitlement_required';
  readonly title = 'Entitlement required';
  constructor(entitlement: string) {
    super(`the tenant's plan does not include ${entitlement}`);
    this.extensions['entitlement'] = entitlement;
  }
}
