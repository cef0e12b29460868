import { AppError } from '../../common/http/app-error.js';

/** SPEC.md answers an unknown (or foreign) project with 400, not 404, on the project routes. */
export class ProjectNotFoundError extends AppError {
  readonly status = 400;
  readonly code = 'project_not_found';
  readonly title = 'Project not found';
  constructor() {
    super('project not found');
  }
}
