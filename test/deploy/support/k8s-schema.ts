/**
 * Validates Kubernetes objects against the API's schemas, from the npm package kubernetes-models
 * (validators compiled from the Kubernetes OpenAPI: types, formats, enums, required fields) and
 * its TypeScript declarations of the same schemas, which reject fields the API does not know (a
 * misspelt or misplaced key, which the API server would drop or refuse), as kubeconform -strict
 * does. An apiVersion/kind the package does not know is a problem too.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { K8sObject } from './chart.js';

interface Model { validate(): void }
type ModelClass = new (data: unknown) => Model;

/** Every problem of every object, each prefixed with `Kind/name`; empty when all are valid. */
export async function k8sSchemaProblems(objects: K8sObject[]): Promise<string[]> {
  const problems: string[] = [];
  const known: K8sObject[] = [];
  for (const o of objects) {
    const model = await modelOf(o);
    if (!model) {
      problems.push(`${label(o)}: no schema for apiVersion ${o.apiVersion}, kind ${o.kind}`);
      continue;
    }
    known.push(o);
    try {
      new model(asApiServerReads(o)).validate();
    } catch (err) {
      problems.push(`${label(o)}: ${(err as Error).message}`);
    }
  }
  return [...problems, ...unknownFields(known)];
}

const label = (o: K8sObject) => `${o.kind}/${o.metadata?.name}`;

async function modelOf(o: K8sObject): Promise<ModelClass | undefined> {
  if (!/^([a-z0-9.-]+\/)?v[0-9a-z]+$/.test(o.apiVersion ?? '') || !/^[A-Z][A-Za-z]+$/.test(o.kind ?? '')) return undefined;
  try {
    return ((await import(/* @vite-ignore */ `kubernetes-models/${o.apiVersion}/${o.kind}`)) as Record<string, ModelClass>)[o.kind];
  } catch {
    return undefined;
  }
}

/** A file beside this one that is never written: module resolution starts from its directory. */
const CHECK_FILE = fileURLToPath(new URL('./k8s-fields.check.ts', import.meta.url));

/**
 * Fields the schemas do not define, found by type-checking each object as a literal of the
 * package's interface for its kind (TypeScript's excess property check). Nulls, which the API
 * reads as absent, are dropped first.
 */
function unknownFields(objects: K8sObject[]): string[] {
  const kinds = [...new Set(objects.map((o) => `${o.apiVersion}/${o.kind}`))];
  const lines = kinds.map((k, i) => `import type { I${k.split('/').pop()} as T${i} } from 'kubernetes-models/${k}';`);
  const first = lines.length;
  for (const [i, o] of objects.entries()) lines.push(`export const o${i}: T${kinds.indexOf(`${o.apiVersion}/${o.kind}`)} = ${JSON.stringify(withoutNulls(o))};`);
  const options: ts.CompilerOptions = {
    strict: true, noEmit: true, skipLibCheck: true, types: [],
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const source = ts.createSourceFile(CHECK_FILE, lines.join('\n'), ts.ScriptTarget.ES2022);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (f, ...rest) => (f === CHECK_FILE ? source : getSourceFile.call(host, f, ...rest));
  host.fileExists = (f) => f === CHECK_FILE || fileExists.call(host, f);
  return ts.getPreEmitDiagnostics(ts.createProgram([CHECK_FILE], options, host)).map((d) => {
    const line = d.file === source && d.start !== undefined ? source.getLineAndCharacterOfPosition(d.start).line : -1;
    const o = objects[line - first];
    return `${o ? label(o) : 'schema declarations'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

/**
 * The object as the API server decodes it: base64 fields (Secret data, ConfigMap binaryData) lose
 * their line breaks, which Go's base64 decoder skips and kustomize's secretGenerator emits every
 * 70 characters.
 */
function asApiServerReads(o: K8sObject): K8sObject {
  const field = o.kind === 'Secret' ? 'data' : o.kind === 'ConfigMap' ? 'binaryData' : undefined;
  const values = field ? (o[field] as Record<string, unknown> | undefined) : undefined;
  if (!field || !values) return o;
  return { ...o, [field]: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v])) };
}

function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}
