// Decoding of Stripe's form encoding (`a[b][0][c]=v`, as stripe-node and curl send it) and a small
// declarative validator that reproduces Stripe's parameter errors: unknown parameter, missing
// required parameter, invalid integer/boolean/enum, and the empty-string-means-unset rule.
import { paramError, missingParam } from './errors';

export type FormValue = string | FormObject | FormValue[];
export interface FormObject {
  [key: string]: FormValue;
}

function splitKey(key: string): string[] | undefined {
  const open = key.indexOf('[');
  if (open < 0) return [key];
  const parts = [key.slice(0, open)];
  const rest = key.slice(open);
  const re = /\[([^\]]*)\]/gy;
  let consumed = 0;
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    parts.push(m[1] as string);
    consumed = re.lastIndex;
  }
  return consumed === rest.length ? parts : undefined;
}

function isIndexKeyed(obj: FormObject): boolean {
  const keys = Object.keys(obj);
  return keys.length > 0 && keys.every((k) => /^\d+$/.test(k));
}

function arraysFromIndexedObjects(v: FormValue): FormValue {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(arraysFromIndexedObjects);
  if (isIndexKeyed(v)) {
    return Object.keys(v)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => arraysFromIndexedObjects(v[k] as FormValue));
  }
  const out: FormObject = {};
  for (const [k, val] of Object.entries(v)) out[k] = arraysFromIndexedObjects(val);
  return out;
}

/** Parses an application/x-www-form-urlencoded body or query string into nested params. */
export function decodeForm(encoded: string): FormObject {
  const root: FormObject = {};
  for (const [rawKey, value] of new URLSearchParams(encoded)) {
    const parts = splitKey(rawKey);
    if (!parts || parts[0] === '') throw paramError(`Invalid parameter name: ${rawKey}`, rawKey);
    let node: FormObject = root;
    for (let i = 0; i < parts.length; i++) {
      let part = parts[i] as string;
      const last = i === parts.length - 1;
      if (part === '') part = String(Object.keys(node).length); // `a[]=x` appends
      const existing = node[part];
      if (last) {
        if (existing !== undefined && typeof existing !== 'string') {
          throw paramError(`Invalid hash`, parts.slice(0, i + 1).join('.'));
        }
        node[part] = value;
      } else {
        if (existing === undefined) {
          const child: FormObject = {};
          node[part] = child;
          node = child;
        } else if (typeof existing === 'string' || Array.isArray(existing)) {
          throw paramError(`Invalid hash`, parts.slice(0, i + 1).join('.'));
        } else {
          node = existing;
        }
      }
    }
  }
  return arraysFromIndexedObjects(root) as FormObject;
}

export type ParamSpec =
  | { kind: 'string'; enum?: readonly string[]; maxLength?: number; emptyable?: boolean; required?: boolean }
  | { kind: 'integer'; min?: number; max?: number; required?: boolean; emptyable?: boolean }
  | { kind: 'boolean'; required?: boolean }
  | { kind: 'decimal'; required?: boolean }
  | { kind: 'metadata'; required?: boolean }
  | { kind: 'expand' }
  | { kind: 'object'; fields: Record<string, ParamSpec>; unmodeled?: readonly string[]; required?: boolean; emptyable?: boolean }
  | { kind: 'array'; of: ParamSpec; maxItems?: number; required?: boolean }
  | { kind: 'range' }; // created[gt]=... or created=123

export type ObjectSpec = Extract<ParamSpec, { kind: 'object' }>;

export function fields(f: Record<string, ParamSpec>, unmodeled: readonly string[] = []): ObjectSpec {
  return { kind: 'object', fields: f, unmodeled };
}

function displayName(path: string[]): string {
  const [head, ...rest] = path;
  return `${head ?? ''}${rest.map((p) => `[${p}]`).join('')}`;
}

function emptyNotAllowed(name: string): never {
  throw paramError(
    `You passed an empty string for '${name}'. We assume empty values are an attempt to unset a parameter; however '${name}' cannot be unset. You should remove '${name}' from your request or supply a non-empty value.`,
    name,
  );
}

function parseValue(spec: ParamSpec, raw: FormValue, path: string[]): unknown {
  const name = displayName(path);
  switch (spec.kind) {
    case 'string': {
      if (typeof raw !== 'string') throw paramError(`Invalid string: ${JSON.stringify(raw)}`, name);
      if (raw === '') return spec.emptyable ? null : emptyNotAllowed(name);
      if (spec.enum && !spec.enum.includes(raw)) {
        const options = spec.enum.length > 1 ? `${spec.enum.slice(0, -1).join(', ')}, or ${spec.enum.at(-1)}` : spec.enum[0];
        throw paramError(`Invalid ${path.at(-1)}: must be one of ${options}`, name);
      }
      if (spec.maxLength !== undefined && raw.length > spec.maxLength) {
        throw paramError(`Invalid string: ${raw.slice(0, 20)}...; must be at most ${spec.maxLength} characters`, name);
      }
      return raw;
    }
    case 'integer': {
      if (typeof raw !== 'string') throw paramError(`Invalid integer: ${JSON.stringify(raw)}`, name, 'parameter_invalid_integer');
      if (raw === '') return spec.emptyable ? null : emptyNotAllowed(name);
      if (!/^-?\d+$/.test(raw)) throw paramError(`Invalid integer: ${raw}`, name, 'parameter_invalid_integer');
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw paramError(`Invalid integer: ${raw}`, name, 'parameter_invalid_integer');
      if (spec.min !== undefined && n < spec.min) throw paramError(`This value must be greater than or equal to ${spec.min}.`, name);
      if (spec.max !== undefined && n > spec.max) throw paramError(`This value must be less than or equal to ${spec.max}.`, name);
      return n;
    }
    case 'boolean':
      if (raw === 'true') return true;
      if (raw === 'false') return false;
      throw paramError(`Invalid boolean: ${typeof raw === 'string' ? raw : JSON.stringify(raw)}`, name);
    case 'decimal':
      if (typeof raw !== 'string' || !/^-?\d+(\.\d{1,12})?$/.test(raw)) {
        throw paramError(`Invalid decimal: ${typeof raw === 'string' ? raw : JSON.stringify(raw)}`, name);
      }
      return raw;
    case 'metadata': {
      // `metadata=` (empty) clears all keys; `metadata[k]=` clears one key.
      if (raw === '') return {};
      if (typeof raw === 'string' || Array.isArray(raw)) throw paramError('Invalid hash', name);
      const out: Record<string, string> = {};
      const keys = Object.keys(raw);
      if (keys.length > 50) throw paramError('Invalid metadata: metadata can have up to 50 keys', name);
      for (const k of keys) {
        const v = raw[k];
        if (typeof v !== 'string') throw paramError(`Invalid metadata value for key '${k}'`, `${name}[${k}]`);
        if (k.length > 40) throw paramError(`Invalid metadata: metadata keys must be at most 40 characters`, `${name}[${k}]`);
        if (k.includes('[') || k.includes(']')) throw paramError(`Invalid metadata: keys cannot contain square brackets`, `${name}[${k}]`);
        if (v.length > 500) throw paramError(`Invalid metadata: metadata values must be at most 500 characters`, `${name}[${k}]`);
        out[k] = v;
      }
      return out;
    }
    case 'expand': {
      const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : undefined;
      if (!list || list.some((x) => typeof x !== 'string')) throw paramError('Invalid array', name);
      return list as string[];
    }
    case 'array': {
      if (!Array.isArray(raw)) throw paramError('Invalid array', name);
      if (spec.maxItems !== undefined && raw.length > spec.maxItems) {
        throw paramError(`Invalid array: must have at most ${spec.maxItems} items`, name);
      }
      return raw.map((item, i) => parseValue(spec.of, item, [...path, String(i)]));
    }
    case 'object': {
      if (raw === '' && spec.emptyable) return null;
      if (typeof raw === 'string' || Array.isArray(raw)) throw paramError('Invalid object', name);
      return parseObject(spec, raw, path);
    }
    case 'range': {
      if (typeof raw === 'string') {
        if (!/^\d+$/.test(raw)) throw paramError(`Invalid integer: ${raw}`, name, 'parameter_invalid_integer');
        return { eq: Number(raw) };
      }
      if (Array.isArray(raw)) throw paramError('Invalid object', name);
      const out: Record<string, number> = {};
      for (const [k, v] of Object.entries(raw)) {
        if (!['gt', 'gte', 'lt', 'lte'].includes(k)) throw paramError(`Received unknown parameter: ${name}[${k}]`, `${name}[${k}]`, 'parameter_unknown');
        if (typeof v !== 'string' || !/^\d+$/.test(v)) throw paramError(`Invalid integer: ${String(v)}`, `${name}[${k}]`, 'parameter_invalid_integer');
        out[k] = Number(v);
      }
      return out;
    }
  }
}

function parseObject(spec: ObjectSpec, raw: FormObject, path: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const childPath = [...path, key];
    const child = spec.fields[key];
    if (!child) {
      const name = displayName(childPath);
      if (spec.unmodeled?.includes(key)) {
        // Stripe accepts this parameter but the fake does not reproduce its effect; failing loudly
        // beats pretending it worked.
        throw paramError(`stripe-fake does not emulate parameter: ${name} (Stripe accepts it; extend scripts/sandboxes/stripe to use it)`, name);
      }
      throw paramError(`Received unknown parameter: ${name}`, name, 'parameter_unknown');
    }
    out[key] = parseValue(child, value, childPath);
  }
  for (const [key, child] of Object.entries(spec.fields)) {
    if ('required' in child && child.required && out[key] === undefined) throw missingParam(displayName([...path, key]));
  }
  return out;
}

/** Validates top-level params against an object spec. */
export function parseParams(spec: ObjectSpec, raw: FormObject): Record<string, unknown> {
  return parseObject(spec, raw, []);
}
