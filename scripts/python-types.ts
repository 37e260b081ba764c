// Writes clients/python/portal_lookup/types.py: the Python client's types generated from the OpenAPI
// document the service serves (the contract), standard library only: a TypedDict per object schema
// (an inline object gets one named after where it sits), Literal for enums and constants, Union for
// oneOf, Optional for a nullable type; the release (info.version), the REST error codes and the
// operations (operationId → method and path). With --check, writes nothing and exits 1 when the
// committed file differs (test/clients/python-client.test.ts checks the same).
// Usage: tsx scripts/python-types.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { servedOpenApi } from './client-types.js';

export const PYTHON_TYPES_FILE = fileURLToPath(new URL('../clients/python/portal_lookup/types.py', import.meta.url));

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  description?: string;
};

interface OpenApiDocument {
  info: { version: string };
  components: { schemas: Record<string, Schema> };
  paths: Record<string, Record<string, { operationId?: string }>>;
}

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

const pascal = (s: string): string =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

const literal = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null) return 'None';
  if (typeof v === 'number') return String(v);
  throw new Error(`python-types: no Python literal for ${JSON.stringify(v)}`);
};

/** One line of text for a comment or docstring. */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

class Emitter {
  /** The TypedDict classes, in the order they were made (a nested one before its parent). */
  readonly classes: string[] = [];
  /** The aliases of schemas that are no object (BatchItem), after every class. */
  readonly aliases: string[] = [];
  private readonly names = new Set<string>();

  /** The Python type of `schema`; an inline object becomes a TypedDict named `hint`. */
  typeOf(schema: Schema, hint: string): string {
    if (schema.$ref) return schema.$ref.replace('#/components/schemas/', '');
    if (schema.const !== undefined) return `Literal[${literal(schema.const)}]`;
    if (schema.enum) return `Literal[${schema.enum.map(literal).join(', ')}]`;
    const union = schema.oneOf ?? schema.anyOf;
    if (union) {
      const members = union.map((m, i) => this.typeOf(m, hint + this.memberSuffix(m, i)));
      return members.length === 1 ? members[0]! : `Union[${members.join(', ')}]`;
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    const nullable = types.includes('null');
    const others = types.filter((t) => t !== 'null');
    if (others.length === 0) return nullable ? 'None' : 'Any';
    const inner = others.map((t) => this.single(t, schema, hint));
    const base = inner.length === 1 ? inner[0]! : `Union[${inner.join(', ')}]`;
    return nullable ? `Optional[${base}]` : base;
  }

  private memberSuffix(member: Schema, index: number): string {
    const req = member.required ?? [];
    return member.properties && req.length > 0 ? pascal(req.join('_')) : String(index + 1);
  }

  private single(type: string, schema: Schema, hint: string): string {
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'array':
        return `List[${schema.items ? this.typeOf(schema.items, `${hint}Item`) : 'Any'}]`;
      case 'object': {
        if (schema.properties && Object.keys(schema.properties).length > 0) {
          this.typedDict(hint, schema);
          return hint;
        }
        const values = [
          ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
          ...Object.values(schema.patternProperties ?? {}),
        ];
        return values.length === 1 ? `Dict[str, ${this.typeOf(values[0]!, `${hint}Value`)}]` : 'Dict[str, Any]';
      }
      default:
        throw new Error(`python-types: no Python type for JSON Schema type ${type} (${hint})`);
    }
  }

  /**
   * A TypedDict: required keys on a base class, the optional ones on a total=False class over it. Keys that
   * are no Python identifier (FieldChange's from) are written in the functional form, their types quoted
   * (evaluated later, as the class form's annotations are).
   */
  typedDict(name: string, schema: Schema): void {
    if (this.names.has(name)) throw new Error(`python-types: two classes named ${name}`);
    this.names.add(name);
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(([key, prop]) => ({
      key,
      required: required.has(key),
      type: this.typeOf(prop, name + pascal(key)),
      doc: prop.description ? oneLine(prop.description) : undefined,
    }));
    type Field = (typeof fields)[number];
    const identifiers = (list: Field[]) =>
      list.every((f) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(f.key) && !KEYWORDS.has(f.key));
    const classBody = (list: Field[]) =>
      list.map((f) => `${f.doc ? `    #: ${f.doc}\n` : ''}    ${f.key}: ${f.type}`).join('\n');
    const functional = (className: string, list: Field[], total: boolean) =>
      `${list
        .filter((f) => f.doc)
        .map((f) => `#: ${f.key}: ${f.doc}`)
        .join('\n')}\n` +
      `${className} = TypedDict(\n    ${JSON.stringify(className)},\n    {\n` +
      list.map((f) => `        ${JSON.stringify(f.key)}: ${JSON.stringify(f.type)},`).join('\n') +
      `\n    },${total ? '' : '\n    total=False,'}\n)\n`;
    const doc = schema.description ? `    """${oneLine(schema.description).replaceAll('"""', "'''")}"""\n\n` : '';
    const req = fields.filter((f) => f.required);
    const opt = fields.filter((f) => !f.required);
    if (!identifiers(opt) && req.length > 0)
      throw new Error(`python-types: ${name}: optional keys that are no identifiers`);
    if (opt.length === 0) {
      this.classes.push(
        identifiers(req)
          ? `class ${name}(TypedDict):\n${doc}${classBody(req)}\n`
          : `${schema.description ? `#: ${oneLine(schema.description)}\n` : ''}${functional(name, req, true)}`,
      );
    } else if (req.length === 0) {
      this.classes.push(
        identifiers(opt)
          ? `class ${name}(TypedDict, total=False):\n${doc}${classBody(opt)}\n`
          : `${schema.description ? `#: ${oneLine(schema.description)}\n` : ''}${functional(name, opt, false)}`,
      );
    } else {
      this.classes.push(
        identifiers(req)
          ? `class _${name}Required(TypedDict):\n${classBody(req)}\n`
          : functional(`_${name}Required`, req, true),
      );
      this.classes.push(`class ${name}(_${name}Required, total=False):\n${doc}${classBody(opt)}\n`);
    }
  }
}

const HEADER = `# Generated by scripts/python-types.ts (npm run client:python-types) from the service's OpenAPI
# document (GET /openapi.json, the one committed as openapi.json). Do not edit: change the contract,
# then regenerate. A test fails when this file is not what the contract makes.
`;

/** types.py for `document`. */
export function pythonTypes(document: OpenApiDocument): string {
  const emitter = new Emitter();
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    const isObject = schema.type === 'object' && schema.properties && !schema.oneOf;
    if (isObject) emitter.typedDict(name, schema);
    else {
      const doc = schema.description ? `#: ${oneLine(schema.description)}\n` : '';
      emitter.aliases.push(`${doc}${name} = ${emitter.typeOf(schema, name)}\n`);
    }
  }
  const errorCodes = (document.components.schemas.ErrorBody?.properties?.code?.enum ?? []) as string[];
  if (errorCodes.length === 0) throw new Error('python-types: ErrorBody.code has no enum');
  const operations = Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => op.operationId)
      .map(
        ([method, op]) =>
          `    ${JSON.stringify(op.operationId)}: (${JSON.stringify(method.toUpperCase())}, ${JSON.stringify(path)}),`,
      ),
  );
  return [
    HEADER,
    'from __future__ import annotations\n',
    'from typing import Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union\n',
    '#: The release these types were generated from (the OpenAPI info.version; the root package.json version).',
    `VERSION = ${JSON.stringify(document.info.version)}\n`,
    "#: The REST API's error codes (spec section 7): PortalApiError.code is one of them.",
    `ErrorCode = Literal[${errorCodes.map(literal).join(', ')}]`,
    `ERROR_CODES: Tuple[str, ...] = (${errorCodes.map(literal).join(', ')},)\n`,
    '#: Every operation of the document: operationId -> (HTTP method, path).',
    `OPERATIONS: Dict[str, Tuple[str, str]] = {\n${operations.join('\n')}\n}\n\n`,
    emitter.classes.join('\n\n'),
    '\n',
    emitter.aliases.join('\n'),
  ].join('\n');
}

export async function generatePythonTypes(): Promise<string> {
  return pythonTypes((await servedOpenApi()) as OpenApiDocument);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = await generatePythonTypes();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(PYTHON_TYPES_FILE, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error('clients/python/portal_lookup/types.py is stale: run npm run client:python-types');
      process.exit(1);
    }
    console.log('clients/python/portal_lookup/types.py is current');
  } else {
    writeFileSync(PYTHON_TYPES_FILE, text);
    console.log(`wrote ${PYTHON_TYPES_FILE}`);
  }
}
