import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '../../common/http/params.js';
import { CursorPageQuery } from '../../common/pagination/page-query.js';
import { Authorized } from '../../common/access/authorized.decorator.js';
import { CurrentPrincipal } from '../../common/access/current-principal.decorator.js';
import type { Principal } from '../../common/access/principal.js';
import { ListProjectsQuery } from './dto/list-projects.query.js';
import {
  ProjectFileListResponse,
  ProjectListResponse,
  ProjectResponse,
} from './dto/project.response.js';
import { ProjectsService } from './projects.service.js';
import type { JsonText } from '../../common/http/json-text.js';
import { ProjectsDocs } from './projects.openapi.js';

@ApiTags('projects')
@Controller('projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @Authorized({ scope: 'projects:read', entitlement: 'api.read' })
  @ProjectsDocs.list()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: ListProjectsQuery,
  ): Promise<JsonText<ProjectListResponse>> {
    return this.projects.listProjects(principal.tenantId, query);
  }

  @Get(':projectId')
  @Authorized({ scope: 'projects:read', entitlement: 'api.read' })
  @ProjectsDocs.get()
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseIdPipe) projectId: number,
  ): Promise<ProjectResponse> {
    return this.projects.getProject(principal.tenantId, projectId);
  }

  @Get(':projectId/files')
  @Authorized({ scope: 'projects:read', entitlement: 'api.read' })
  @ProjectsDocs.files()
  files(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId', ParseIdPipe) projectId: number,
    @Query() query: CursorPageQuery,
  ): Promise<JsonText<ProjectFileListResponse>> {
    return this.projects.listFiles(principal.tenantId, projectId, query);
  }
}
