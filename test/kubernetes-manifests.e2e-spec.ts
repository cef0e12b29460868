import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { loadConfig } from '../src/common/config/load-config.js';

const KUBERNETES = resolve(import.meta.dirname, '../deploy/kubernetes');

/** The validating model of each kind the manifests use (the Kubernetes OpenAPI schemas). */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

function documents(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
    return d.toJS() as Manifest;
  });
}

/** Every manifest a kustomization lists (its `resources`), as kubectl apply -k would send. */
function kustomization(dir: string): Manifest[] {
  const [k] = documents(join(KUBERNETES, dir, 'kustomization.yaml')) as unknown as Array<{
    resources: string[];
  }>;
  return k!.resources.flatMap((r) => documents(join(KUBERNETES, dir, r)));
}

const app = kustomization('app');
const migrate = kustomization('migrate');
const one = <T>(kind: string, name?: string): T => {
  const found = [...app, ...migrate].filter(
    (m) => m.kind === kind && (name === undefined || m.metadata.name === name),
  );
  expect(found).toHaveLength(1);
  return found[0] as T;
};

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  it('every manifest is valid against the Kubernetes schema of its kind', () => {
    const files = ['app', 'migrate'].flatMap((dir) =>
      readdirSync(join(KUBERNETES, dir))
        .filter((f) => f !== 'kustomization.yaml')
        .map((f) => join(KUBERNETES, dir, f)),
    );
    // every file is listed in its kustomization, and the example Secret validates too
    expect(app.length + migrate.length).toBe(files.flatMap(documents).length);
    const all = [...app, ...migrate, ...documents(join(KUBERNETES, 'secret.example.yaml'))];
    for (const m of all) {
      const Model = MODELS[`${m.apiVersion}/${m.kind}`];
      expect(Model).toBeDefined();
      expect(() => new Model!(m as never).validate()).not.toThrow();
    }
  });

  it('the schema validation catches a wrong manifest', () => {
    const deployment = structuredClone(one<Deployment>('Deployment'));
    (deployment.spec!.template.spec!.containers[0]! as unknown as { ports: unknown }).ports = [
      { containerPort: 'http' },
    ];
    expect(() => new Deployment(deployment).validate()).toThrow();
  });

  const deployment = one<Deployment>('Deployment');
  const pod = deployment.spec!.template;
  const container = pod.spec!.containers[0] as IContainer;
  const configMap = one<ConfigMap>('ConfigMap');
  // the service's own parsing of the ConfigMap's settings (plus what the Secret supplies)
  const config = loadConfig({
    ...configMap.data,
    DATABASE_URL: 'postgres://grc@pgbouncer:6432/grc',
    WEBHOOK_SECRET_KEY: Buffer.alloc(32).toString('base64'),
  });
  const portOf = (name: string) => container.ports!.find((p) => p.name === name)!.containerPort;

  it('the container ports are the ports the ConfigMap makes the service listen on', () => {
    expect(portOf('http')).toBe(config.PORT);
    expect(portOf('platform')).toBe(config.PLATFORM_API_PORT);
    expect(portOf('metrics')).toBe(config.METRICS_PORT);
    // listeners reachable from other pods, not the loopback defaults
    expect(config.PLATFORM_API_HOST).toBe('0.0.0.0');
    expect(config.METRICS_HOST).toBe('0.0.0.0');
  });

  it('probes use the health routes; config and secrets come from the ConfigMap and the Secret', () => {
    expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe])
      expect(probe?.httpGet?.port).toBe('http');
    expect(container.envFrom).toEqual([
      { configMapRef: { name: configMap.metadata!.name } },
      { secretRef: { name: 'grc-integration-api' } },
    ]);
    // no secret value in the ConfigMap
    for (const key of Object.keys(configMap.data ?? {}))
      expect(key).not.toMatch(/SECRET|TOKEN|PASSWORD|DATABASE_URL|REDIS_URL/);
  });

  it('runs as a non-root user on a read-only root filesystem, and the grace period covers the drain', () => {
    expect(pod.spec!.securityContext?.runAsNonRoot).toBe(true);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
    expect(container.lifecycle?.preStop?.exec?.command).toEqual(['sleep', '5']);
    // preStop 5 s + main.ts's 10 s for requests in flight + the application's close
    expect(pod.spec!.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    expect(container.resources?.limits?.['memory']).toBeDefined();
    expect(container.resources?.requests?.['cpu']).toBeDefined();
  });

  it('Services, the disruption budget and the autoscaler select the Deployment’s pods', () => {
    const labels = pod.metadata!.labels!;
    const selects = (selector: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(deployment.spec!.selector.matchLabels).toEqual(
      Object.fromEntries(
        Object.keys(deployment.spec!.selector.matchLabels!).map((k) => [k, labels[k]]),
      ),
    );
    const services = [...app].filter((m) => m.kind === 'Service') as unknown as Service[];
    const own = services.filter((s) => s.spec!.type !== 'ExternalName');
    expect(own.map((s) => s.metadata!.name).sort()).toEqual([
      'grc-integration-api',
      'grc-integration-api-metrics',
      'grc-integration-api-platform',
    ]);
    for (const s of own) {
      expect(selects(s.spec!.selector!)).toBe(true);
      for (const p of s.spec!.ports!)
        expect(container.ports!.map((c) => c.name)).toContain(p.targetPort);
    }
    // the platform listener has a Service of its own, the API's Service does not expose it
    expect(
      one<Service>('Service', 'grc-integration-api').spec!.ports!.map((p) => p.targetPort),
    ).toEqual(['http']);
    expect(
      selects(one<PodDisruptionBudget>('PodDisruptionBudget').spec!.selector!.matchLabels!),
    ).toBe(true);
    const hpa = one<HorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpa.spec!.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata!.name,
    });
    expect(hpa.spec!.metrics!.map((m) => m.resource?.name)).toEqual(['cpu']);
  });

  it('the NetworkPolicy admits the platform port from the platform’s namespace only', () => {
    const policy = one<NetworkPolicy>('NetworkPolicy');
    const labels = pod.metadata!.labels!;
    expect(
      Object.entries(policy.spec!.podSelector.matchLabels!).every(([k, v]) => labels[k] === v),
    ).toBe(true);
    expect(policy.spec!.policyTypes).toEqual(['Ingress']);
    const rules = policy.spec!.ingress!;
    const admitting = (port: string) =>
      rules.filter((r) => r.ports?.some((p) => p.port === port || p.port === portOf(port)));
    const platform = admitting('platform');
    expect(platform).toHaveLength(1);
    expect(platform[0]!.from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'platform' } } },
    ]);
    // no rule without ports (which would admit every port)
    for (const r of rules) expect(r.ports?.length).toBeGreaterThan(0);
  });

  it('the migration Job runs the migration command on PostgreSQL itself, once', () => {
    const job = one<Job>('Job');
    const c = job.spec!.template.spec!.containers[0]!;
    expect(c.command).toEqual(['node', 'dist/src/migrate-cli.js']);
    expect(c.image).toBe(container.image);
    expect(c.env).toEqual([
      {
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'grc-integration-api', key: 'DATABASE_LISTEN_URL' } },
      },
    ]);
    expect(job.spec!.template.spec!.restartPolicy).toBe('Never');
    expect(job.spec!.template.spec!.securityContext?.runAsNonRoot).toBe(true);
  });

  it('Prometheus scrapes the metrics Service’s pods as the job the alert rules select', () => {
    const monitoring = resolve(import.meta.dirname, '../deploy/monitoring');
    const [config] = documents(
      join(monitoring, 'prometheus/kubernetes-scrape.yaml'),
    ) as unknown as [
      {
        scrape_configs: Array<{
          job_name: string;
          relabel_configs: Array<{ source_labels: string[]; regex?: string; action?: string }>;
        }>;
      },
    ];
    const rules = readFileSync(join(monitoring, 'prometheus/alerts.yaml'), 'utf8');
    const jobs = new Set([...rules.matchAll(/job="([^"]+)"/g)].map((m) => m[1]));
    expect([...jobs]).toEqual([config.scrape_configs[0]!.job_name]);
    const kept = (label: string) =>
      config.scrape_configs[0]!.relabel_configs.find(
        (r) => r.action === 'keep' && r.source_labels.includes(label),
      )?.regex;
    const metrics = one<Service>('Service', 'grc-integration-api-metrics');
    expect(kept('__meta_kubernetes_service_name')).toBe(metrics.metadata!.name);
    expect(kept('__meta_kubernetes_endpoint_port_name')).toBe(metrics.spec!.ports![0]!.name);
    // no annotations inviting a generic pod scrape, which would label the series another job
    expect(
      Object.keys(pod.metadata!.annotations ?? {}).filter((k) => k.startsWith('prometheus.io')),
    ).toEqual([]);
  });
});
