import { AppError } from '../../common/http/app-error.js';

/** The project routes answer an unknown (or foreign) project with 400, not 404. */
export class ProjectNotFoundError extends AppError {
  readonly code = 'project_not_found';
  constructor() {
    super('project not found');
  }
}
