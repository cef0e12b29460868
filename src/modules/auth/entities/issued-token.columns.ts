import { Column } from 'typeorm';
import { CreatedAtColumn } from '../../../common/database/entity-columns.js';

/**
 * What an access token and a personal access token share: a secret kept only as its digest, the
 * scopes it grants and its lifetime. Each table declares these columns itself (TypeORM copies an
 * abstract base's columns into every entity that extends it).
 */
export abstract class IssuedTokenColumns {
  @Column({ name: 'token_digest', type: 'bytea', select: false, unique: true })
  tokenDigest!: Buffer;

  @Column('text', { array: true })
  scopes!: string[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @CreatedAtColumn()
  createdAt!: Date;
}
