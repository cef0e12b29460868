import { AppError } from '../../common/http/app-error.js';

/** SPEC.md answers an unknown (or foreign) project with 400, not 404, on the project routes. */
export class ProjectNotFoundError extends AppError {
  readonly code = 'project_not_found';
  constructor() {
    super('project not found');
  }
}
