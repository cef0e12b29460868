import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { SCOPES, type Scope } from '../../../../common/access/scopes.js';
import { CursorPageResponse } from '../../../../common/pagination/page.response.js';

const CLIENT_ID_EXAMPLE = 'gci_OqYKz1o6cW7b2xQ0m8Jt4RrVnH5sLpAeUfGkDi3yTwZ9CX0aB';

@ApiSchema({ name: 'CreatedClientView' })
export class CreatedClientResponse {
  @ApiProperty({ example: CLIENT_ID_EXAMPLE })
  client_id!: string;

  @ApiProperty({
    example: 'gcs_lUtnQ2v7…',
    description: 'Returned in this response only (kept as a digest); store it in a secret store.',
  })
  client_secret!: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['projects:read'] })
  scopes!: Scope[];

  @ApiProperty({ type: String, isArray: true, example: ['10.0.0.0/8'] })
  allowed_ips!: string[];
}

@ApiSchema({ name: 'ClientView' })
export class ClientResponse {
  @ApiProperty({ example: CLIENT_ID_EXAMPLE })
  client_id!: string;

  @ApiProperty({ example: 'erp' })
  name!: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['projects:read'] })
  scopes!: Scope[];

  @ApiProperty({ type: String, isArray: true, example: ['10.0.0.0/8'] })
  allowed_ips!: string[];

  @ApiProperty({ example: true, description: '`false` once disabled (final).' })
  enabled!: boolean;

  @ApiProperty({ example: '2026-11-22T03:06:40.112Z' })
  created_at!: string;
}

@ApiSchema({ name: 'ClientListView' })
export class ClientListResponse extends CursorPageResponse {
  @ApiProperty({ type: [ClientResponse], description: 'Oldest first; never a secret.' })
  data!: ClientResponse[];
}

@ApiSchema({ name: 'DisabledClientView' })
export class DisabledClientResponse {
  @ApiProperty({ example: 2, description: 'The tenant the client belongs to.' })
  tenant_id!: number;

  @ApiProperty({ example: CLIENT_ID_EXAMPLE })
  client_id!: string;

  @ApiProperty({ enum: [false], example: false })
  enabled!: false;
}

@ApiSchema({ name: 'RotatedClientSecretView' })
export class RotatedClientSecretResponse {
  @ApiProperty({ example: 2, description: 'The tenant the client belongs to.' })
  tenant_id!: number;

  @ApiProperty({ example: CLIENT_ID_EXAMPLE })
  client_id!: string;

  @ApiProperty({
    example: 'gcs_9xWq…',
    description:
      'The new secret, returned in this response only. The old one was refused from the moment ' +
      'this answered.',
  })
  client_secret!: string;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    example: 0,
    description: 'Access tokens revoked by this rotation (0 unless `revoke_tokens` was `true`).',
  })
  tokens_revoked!: number;
}

@ApiSchema({ name: 'CreatedPatView' })
export class CreatedPatResponse {
  @ApiProperty({ example: 1 })
  pat_id!: number;

  @ApiProperty({
    example: 'gpat_I1EPq0…',
    description: 'Returned in this response only (kept as a digest); store it in a secret store.',
  })
  token!: string;

  @ApiProperty({ example: '2026-12-22T03:06:42.994Z' })
  expires_at!: string;
}

@ApiSchema({ name: 'PatView' })
export class PatResponse {
  @ApiProperty({ example: 1 })
  pat_id!: number;

  @ApiProperty({ example: 'portal' })
  name!: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['projects:read'] })
  scopes!: Scope[];

  @ApiProperty({ type: String, isArray: true, example: [] })
  allowed_ips!: string[];

  @ApiProperty({ example: '2026-12-22T03:06:42.994Z' })
  expires_at!: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  revoked_at!: string | null;

  @ApiProperty({ example: '2026-11-22T03:06:42.994Z' })
  created_at!: string;
}

@ApiSchema({ name: 'PatListView' })
export class PatListResponse extends CursorPageResponse {
  @ApiProperty({ type: [PatResponse], description: 'Oldest first; never a token.' })
  data!: PatResponse[];
}

@ApiSchema({ name: 'RevokedPatView' })
export class RevokedPatResponse {
  @ApiProperty({ example: 2, description: 'The tenant the token belongs to.' })
  tenant_id!: number;

  @ApiProperty({ example: 1 })
  pat_id!: number;

  @ApiProperty({
    example: '2026-11-22T03:06:45.938Z',
    description: 'The first revocation time: revoking again changes nothing.',
  })
  revoked_at!: string;
}
