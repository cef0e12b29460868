import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { CursorPageResponse } from '../../../../common/pagination/page.response.js';

@ApiSchema({ description: 'One line of the audit trail. No secret is ever recorded in one.' })
export class AuditItem {
  @ApiProperty({ type: 'integer', format: 'int64', example: 27 })
  id!: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 1,
    description: 'The tenant; null for lines before a tenant was known (a refused token request).',
  })
  tenant_id!: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'platform:admin-ui',
    description:
      'The credential that acted, by reference (`client:<client_id>`, `pat:<id>`, ' +
      '`platform:<key name>`, `cli`), never the secret itself.',
  })
  credential!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'jane@acme.example',
    description: "The person in the platform's UI a platform key acted for (`X-Acting-User`).",
  })
  actor!: string | null;

  @ApiProperty({ example: 'revision.accept' })
  action!: string;

  @ApiProperty({ type: String, nullable: true, example: 'revision:44' })
  target!: string | null;

  @ApiProperty({ enum: ['success', 'failure'], example: 'success' })
  outcome!: 'success' | 'failure';

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'A stable code, e.g. the error code of a refusal.',
  })
  detail!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.9' })
  ip!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '3f0c2b8e-4c1d-4a7e-9a41-0d1f2e3c4b5a' })
  request_id!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T03:07:02.013Z' })
  created_at!: string;
}

@ApiSchema({ description: 'A page of the audit trail, newest first.' })
export class AuditListResponse extends CursorPageResponse {
  @ApiProperty({ type: [AuditItem] })
  data!: AuditItem[];
}
