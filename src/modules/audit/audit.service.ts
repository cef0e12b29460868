import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export type AuditOutcome = 'success' | 'failure';

export interface AuditEntry {
  tenantId: number | null;
  credentialRef: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  /** A stable code (e.g. the error code of a refusal); never a secret or free text from a body. */
  detail?: string | null;
  ip?: string | null;
  requestId?: string | null;
}

export interface AuditRecord {
  id: number;
  tenant_id: number | null;
  credential: string | null;
  action: string;
  target: string | null;
  outcome: AuditOutcome;
  detail: string | null;
  ip: string | null;
  request_id: string | null;
  created_at: string;
}

/** The append-only audit trail (token issuance, staging, decisions, locks, webhooks, replays). */
@Injectable()
export class AuditService {
  private readonly logger = new Logger('Audit');

  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async record(entry: AuditEntry): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO audit_log (tenant_id, credential_ref, action, target, outcome, detail, ip, request_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          entry.tenantId,
          entry.credentialRef,
          entry.action,
          entry.target,
          entry.outcome,
          entry.detail ?? null,
          entry.ip ?? null,
          entry.requestId ?? null,
        ],
      );
    } catch (err) {
      // the action itself has happened; losing its audit line must not turn it into a 500
      this.logger.error({ err, action: entry.action }, 'audit record could not be written');
    }
  }

  async list(tenantId: number, limit: number): Promise<AuditRecord[]> {
    const rows: Array<Omit<AuditRecord, 'created_at' | 'id'> & { id: string; created_at: Date }> =
      await this.db.query(
        `SELECT id, tenant_id, credential_ref AS credential, action, target, outcome, detail, ip,
                request_id, created_at
         FROM audit_log WHERE tenant_id = $1 ORDER BY id DESC LIMIT $2`,
        [tenantId, limit],
      );
    return rows.map((r) => ({ ...r, id: Number(r.id), created_at: r.created_at.toISOString() }));
  }
}
