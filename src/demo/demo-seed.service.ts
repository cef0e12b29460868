import { Injectable } from '@nestjs/common';
import { sha256Hex } from '../common/crypto/tokens.js';
import { CredentialAdminService } from '../modules/auth/credential-admin.service.js';
import { SCOPES } from '../common/access/scopes.js';
import { DocumentsService } from '../modules/documents/documents.service.js';
import { ProjectsService } from '../modules/projects/projects.service.js';
import { TenancyService } from '../modules/tenancy/tenancy.service.js';

export interface DemoSeed {
  tenant_id: number;
  client_id: string;
  client_secret: string;
  projects: Array<{
    projectId: number;
    name: string;
    documents: Array<{ documentId: number; versionId: number; title: string }>;
    files: Array<{ fileId: number; name: string }>;
  }>;
}

interface DemoProject {
  name: string;
  description: string;
  documents: Array<{ title: string; content: Record<string, unknown> }>;
  files: Array<{ name: string; media_type: string; size_bytes: number }>;
}

const section = (heading: string, body: string) => ({ heading, body });

const DEMO_PROJECTS: DemoProject[] = [
  {
    name: 'ISO 27001 Certification',
    description: 'Information security management system for the 2026 certification audit',
    documents: [
      {
        title: 'Information Security Policy',
        content: {
          type: 'policy',
          owner: 'CISO',
          sections: [
            section(
              'Purpose',
              'Protect the confidentiality, integrity and availability of information.',
            ),
            section('Scope', 'All employees, contractors and systems of the company.'),
          ],
        },
      },
      {
        title: 'Access Control Policy',
        content: {
          type: 'policy',
          owner: 'IT Operations',
          sections: [
            section('Principle', 'Least privilege; access is reviewed every quarter.'),
            section('Leavers', 'Accounts are disabled on the last working day.'),
          ],
        },
      },
      {
        title: 'Risk Assessment Methodology',
        content: {
          type: 'procedure',
          owner: 'Risk Office',
          scale: { likelihood: [1, 5], impact: [1, 5] },
          sections: [section('Method', 'Risk = likelihood x impact, reviewed yearly.')],
        },
      },
    ],
    files: [
      {
        name: 'Statement of Applicability.xlsx',
        media_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        size_bytes: 48_213,
      },
      {
        name: 'Internal audit report 2025.pdf',
        media_type: 'application/pdf',
        size_bytes: 391_044,
      },
    ],
  },
  {
    name: 'GDPR Compliance Programme',
    description: 'Records of processing, data protection impact assessments and breach handling',
    documents: [
      {
        title: 'Record of Processing Activities',
        content: {
          type: 'register',
          owner: 'Data Protection Officer',
          entries: [{ activity: 'Payroll', legal_basis: 'contract', retention: '10 years' }],
        },
      },
      {
        title: 'Data Breach Response Procedure',
        content: {
          type: 'procedure',
          owner: 'Data Protection Officer',
          sections: [
            section('Notification', 'The supervisory authority is notified within 72 hours.'),
          ],
        },
      },
    ],
    files: [
      {
        name: 'DPIA template.docx',
        media_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        size_bytes: 27_530,
      },
    ],
  },
];

/**
 * The demo tenant of a first start (and `demo seed`): an enterprise tenant, a client holding every
 * scope, and two projects with documents and files, created through the owning services.
 */
@Injectable()
export class DemoSeedService {
  constructor(
    private readonly tenancy: TenancyService,
    private readonly credentials: CredentialAdminService,
    private readonly projects: ProjectsService,
    private readonly documents: DocumentsService,
  ) {}

  anyTenantExists(): Promise<boolean> {
    return this.tenancy.anyTenantExists();
  }

  async seed(): Promise<DemoSeed> {
    const tenant = await this.tenancy.create('Demo Company', 'enterprise');
    const tenantId = tenant.tenant_id;
    const client = await this.credentials.createClient(tenantId, {
      name: 'demo client',
      scopes: SCOPES,
    });
    const projects: DemoSeed['projects'] = [];
    for (const p of DEMO_PROJECTS) {
      const { projectId } = await this.projects.createProject(tenantId, {
        name: p.name,
        description: p.description,
      });
      const documents = [];
      for (const d of p.documents) {
        const created = await this.documents.createDocument(
          tenantId,
          projectId,
          d.title,
          d.content,
        );
        documents.push({ ...created, title: d.title });
      }
      const files = [];
      for (const f of p.files) {
        const { fileId } = await this.projects.addFile(tenantId, projectId, {
          ...f,
          sha256: sha256Hex(`demo:${f.name}`),
          storage_location: `demo://tenant-${tenantId}/${encodeURIComponent(f.name)}`,
        });
        files.push({ fileId, name: f.name });
      }
      projects.push({ projectId, name: p.name, documents, files });
    }
    return {
      tenant_id: tenantId,
      client_id: client.client_id,
      client_secret: client.client_secret,
      projects,
    };
  }
}
