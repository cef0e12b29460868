import { call } from './http.js';

/** JSON Schema as the OpenAPI document writes it (the subset the generated tests read). */
export interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  additionalProperties?: boolean | Schema;
}

export interface Operation {
  method: string;
  /** OpenAPI template relative to /api/v1, e.g. `/documents/{documentId}/checkout`. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  /** The request body schema (refs resolved one level), when the operation takes a body. */
  body?: { contentTypes: string[]; schema: Schema; required: boolean };
  secured: boolean;
}

interface OpenApiParameter {
  name: string;
  in: string;
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  security?: unknown[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, Schema> };
}

const PREFIX = '/api/v1';

/**
 * The app's own route table, read from the OpenAPI document it serves: tests generated from it
 * cover a route as soon as it is published.
 */
export async function loadRouteTable(baseUrl: string): Promise<Operation[]> {
  const res = await call(baseUrl, 'GET', '/openapi.json');
  if (res.status !== 200) throw new Error(`openapi.json: ${res.status}`);
  const doc = res.body as OpenApiDocument;
  const schemas = doc.components?.schemas ?? {};
  const resolve = (s: Schema | undefined): Schema => {
    if (!s) return {};
    if (s.$ref) return schemas[s.$ref.replace('#/components/schemas/', '')] ?? {};
    return s;
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith(PREFIX)) continue;
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const names = (where: string): string[] => [
        ...new Set(params.filter((p) => p.in === where).map((p) => p.name.toLowerCase())),
      ];
      const content = op.requestBody?.content;
      const first = content ? Object.values(content)[0] : undefined;
      operations.push({
        method: method.toUpperCase(),
        template: path.slice(PREFIX.length),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: names('query'),
        headerParams: names('header'),
        body: content
          ? {
              contentTypes: Object.keys(content),
              schema: resolve(first?.schema),
              required: op.requestBody?.required ?? false,
            }
          : undefined,
        secured: (op.security ?? []).length > 0,
      });
    }
  }
  return operations;
}

/** Fills `{name}` placeholders; values are inserted as given (callers encode them). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for path parameter ${name}`);
    return v;
  });
}
