import { describe, expect, it, jest } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { AppConfig } from '../../common/config/app-config.js';
import { SecretBox } from '../../common/crypto/secret-box.js';
import { TenantTransactions } from '../../common/database/tenant-transactions.js';
import type { WebhookStatus } from './entities/webhook.entity.js';
import { WebhookOutbox } from './outbox/webhook-outbox.service.js';
import { DeliveriesRepository } from './repository/deliveries.repository.js';
import { type WebhookRow, WebhooksRepository } from './repository/webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * The webhook status machine (`WebhooksService.setStatus`) with its repositories faked: which
 * changes are refused, which are no-ops, and what each change does to the pending deliveries.
 * The row lock that serialises two changes is PostgreSQL's (test/webhooks-manage.e2e-spec.ts).
 */

const AT = new Date('2030-01-01T00:00:00.000Z');

function row(status: WebhookStatus, reason: WebhookRow['status_reason'] = null): WebhookRow {
  const base = { id: 4, name: 'hook', endpoint_url: 'https://example.com/hook', events: [] };
  return { ...base, status, status_reason: reason, created_at: AT, updated_at: AT };
}

async function machine(current: WebhookRow | undefined) {
  const webhooks = {
    lockForUpdate: jest.fn(async (_tenantId: number, _webhookId: number) => current),
    setStatus: jest.fn(async (_tenantId: number, _webhookId: number, status: WebhookStatus) =>
      row(status, status === 'active' ? null : 'manual'),
    ),
  };
  const deliveries = {
    cancelPending: jest.fn(async (_tenantId: number, _webhookId: number) => undefined),
    makeDueNow: jest.fn(async (_tenantId: number, _webhookId: number, _why: string) => undefined),
  };
  const tx = { run: (_tenantId: number, work: () => Promise<unknown>) => work() };
  const module = await Test.createTestingModule({
    providers: [
      WebhooksService,
      { provide: TenantTransactions, useValue: tx },
      { provide: AppConfig, useValue: {} },
      { provide: SecretBox, useValue: {} },
      { provide: WebhookOutbox, useValue: {} },
      { provide: WebhooksRepository, useValue: webhooks },
      { provide: DeliveriesRepository, useValue: deliveries },
    ],
  }).compile();
  return { service: module.get(WebhooksService), webhooks, deliveries };
}

describe('the webhook status machine', () => {
  it('answers 404 for a webhook the tenant does not have', async () => {
    const { service, webhooks } = await machine(undefined);
    await expect(service.setStatus(1, 4, 'paused')).rejects.toMatchObject({ code: 'not_found' });
    expect(webhooks.setStatus).not.toHaveBeenCalled();
  });

  it('treats asking for the current status as a no-op that keeps its reason', async () => {
    const { service, webhooks, deliveries } = await machine(row('paused', 'failing'));
    const view = await service.setStatus(1, 4, 'paused');
    expect(view).toMatchObject({ status: 'paused', status_reason: 'failing' });
    expect(webhooks.setStatus).not.toHaveBeenCalled();
    expect(deliveries.makeDueNow).not.toHaveBeenCalled();
  });

  it.each<WebhookStatus>(['active', 'paused'])(
    'keeps revocation final (to %s: 409)',
    async (to) => {
      const { service, webhooks } = await machine(row('revoked', 'manual'));
      await expect(service.setStatus(1, 4, to)).rejects.toMatchObject({ code: 'webhook_revoked' });
      expect(webhooks.setStatus).not.toHaveBeenCalled();
    },
  );

  it.each<WebhookStatus>(['active', 'paused'])(
    'cancels the pending deliveries of a webhook revoked while %s',
    async (from) => {
      const { service, webhooks, deliveries } = await machine(row(from));
      const view = await service.setStatus(1, 4, 'revoked');
      expect(view).toMatchObject({ status: 'revoked', status_reason: 'manual' });
      expect(webhooks.setStatus).toHaveBeenCalledWith(1, 4, 'revoked');
      expect(deliveries.cancelPending).toHaveBeenCalledWith(1, 4);
      expect(deliveries.makeDueNow).not.toHaveBeenCalled();
    },
  );

  it('makes what a paused webhook held due at once when it is activated again', async () => {
    const { service, deliveries } = await machine(row('paused', 'gone'));
    const view = await service.setStatus(1, 4, 'active');
    expect(view).toMatchObject({ status: 'active', status_reason: null });
    expect(deliveries.makeDueNow).toHaveBeenCalledWith(1, 4, 'overdue');
    expect(deliveries.cancelPending).not.toHaveBeenCalled();
  });

  it('pauses without touching the deliveries (they wait, kept)', async () => {
    const { service, webhooks, deliveries } = await machine(row('active'));
    await service.setStatus(1, 4, 'paused');
    expect(webhooks.setStatus).toHaveBeenCalledWith(1, 4, 'paused');
    expect(deliveries.cancelPending).not.toHaveBeenCalled();
    expect(deliveries.makeDueNow).not.toHaveBeenCalled();
  });
});
