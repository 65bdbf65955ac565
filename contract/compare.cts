// Compares an answer with its zod schema and says where they differ, in words a person reads:
// "data[3].finance.paymentAmount: expected number, got string". Fields the schema does not name are additions
// (the API may grow), not differences. Walks zod's own schema objects, so the schemas stay plain zod.
import { z } from 'zod';

export interface Difference {
	path: string;
	expected: string;
	received: string;
}

export interface Comparison {
	differences: Difference[];
	/** Paths of fields the contract does not name. */
	additions: string[];
}

export function compareWithSchema(schema: z.ZodTypeAny, value: unknown): Comparison {
	const result: Comparison = { differences: [], additions: [] };
	walk(schema, value, '', result);
	return result;
}

/** The JSON type of a value, as a person would name it. */
export function typeOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (Number.isInteger(value)) return 'integer';
	return typeof value;
}

function describeReceived(value: unknown): string {
	const type = typeOf(value);
	if (type === 'string') {
		const text = value as string;
		return `string "${text.length > 40 ? `${text.slice(0, 40)}...` : text}"`;
	}
	if (type === 'integer') return `number ${String(value)}`;
	return type;
}

const join = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

function walk(schema: z.ZodTypeAny, value: unknown, path: string, out: Comparison): void {
	const def = schema._def as { typeName: z.ZodFirstPartyTypeKind } & Record<string, unknown>;
	const at = path || '(answer)';
	const differ = (expected: string): void => {
		out.differences.push({ path: at, expected, received: value === undefined ? 'nothing (missing)' : describeReceived(value) });
	};
	switch (def.typeName) {
		case z.ZodFirstPartyTypeKind.ZodOptional:
			if (value !== undefined) walk(def.innerType as z.ZodTypeAny, value, path, out);
			return;
		case z.ZodFirstPartyTypeKind.ZodNullable:
			if (value === null) return;
			if (value === undefined) return differ(expectedText(schema));
			{
				// A wrong type right here was expected to be "X or null"; deeper differences keep their own words.
				const inner: Comparison = { differences: [], additions: [] };
				walk(def.innerType as z.ZodTypeAny, value, path, inner);
				for (const difference of inner.differences) out.differences.push(difference.path === at ? { ...difference, expected: expectedText(schema) } : difference);
				out.additions.push(...inner.additions);
			}
			return;
		case z.ZodFirstPartyTypeKind.ZodObject: {
			if (typeOf(value) !== 'object') return differ('object');
			const record = value as Record<string, unknown>;
			const shape = (schema as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
			for (const [key, field] of Object.entries(shape)) walk(field, record[key], join(path, key), out);
			for (const key of Object.keys(record)) if (!(key in shape)) out.additions.push(join(path, key));
			return;
		}
		case z.ZodFirstPartyTypeKind.ZodArray:
			if (!Array.isArray(value)) return differ('array');
			value.forEach((element, index) => walk(def.type as z.ZodTypeAny, element, `${path}[${index}]`, out));
			return;
		case z.ZodFirstPartyTypeKind.ZodRecord:
			if (typeOf(value) !== 'object') return differ('object');
			for (const [key, element] of Object.entries(value as Record<string, unknown>)) walk(def.valueType as z.ZodTypeAny, element, `${path}[${JSON.stringify(key)}]`, out);
			return;
		case z.ZodFirstPartyTypeKind.ZodUnion: {
			// The option that fits best: no differences, else the fewest, and of those the one the answer got furthest into.
			let best: Comparison | undefined;
			for (const option of def.options as z.ZodTypeAny[]) {
				const attempt: Comparison = { differences: [], additions: [] };
				walk(option, value, path, attempt);
				if (!best || attempt.differences.length < best.differences.length || (attempt.differences.length === best.differences.length && depth(attempt) > depth(best))) best = attempt;
				if (attempt.differences.length === 0) break;
			}
			if (best) {
				out.differences.push(...best.differences);
				out.additions.push(...best.additions);
			}
			return;
		}
		case z.ZodFirstPartyTypeKind.ZodEnum: {
			const options = def.values as string[];
			if (typeof value !== 'string' || !options.includes(value)) differ(`one of ${options.join(', ')}`);
			return;
		}
		case z.ZodFirstPartyTypeKind.ZodString:
			if (typeof value !== 'string') return differ(expectedText(schema));
			if (isTimestamp(schema) && !(/^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)))) differ('an ISO 8601 timestamp');
			return;
		case z.ZodFirstPartyTypeKind.ZodNumber:
			if (typeof value !== 'number' || !Number.isFinite(value)) return differ('number');
			if (!schema.safeParse(value).success) differ(expectedText(schema));
			return;
		case z.ZodFirstPartyTypeKind.ZodBoolean:
			if (typeof value !== 'boolean') differ('boolean');
			return;
		default:
			if (!schema.safeParse(value).success) differ(expectedText(schema));
	}
}

const depth = (comparison: Comparison) => comparison.differences.reduce((sum, difference) => sum + difference.path.length, 0);

function isTimestamp(schema: z.ZodTypeAny): boolean {
	return ((schema._def as { checks?: Array<{ kind: string }> }).checks ?? []).some((check) => check.kind === 'datetime');
}

/** A schema in a few words, for "expected ...". */
export function expectedText(schema: z.ZodTypeAny): string {
	const def = schema._def as { typeName: z.ZodFirstPartyTypeKind } & Record<string, unknown>;
	switch (def.typeName) {
		case z.ZodFirstPartyTypeKind.ZodString:
			return isTimestamp(schema) ? 'an ISO 8601 timestamp' : 'string';
		case z.ZodFirstPartyTypeKind.ZodNumber: {
			const checks = (def.checks as Array<{ kind: string; value?: number }>) ?? [];
			const words = ['number'];
			if (checks.some((check) => check.kind === 'int')) words[0] = 'integer';
			if (checks.some((check) => check.kind === 'min' && check.value === 0)) words.push('>= 0');
			return words.join(' ');
		}
		case z.ZodFirstPartyTypeKind.ZodBoolean:
			return 'boolean';
		case z.ZodFirstPartyTypeKind.ZodArray:
			return 'array';
		case z.ZodFirstPartyTypeKind.ZodObject:
		case z.ZodFirstPartyTypeKind.ZodRecord:
			return 'object';
		case z.ZodFirstPartyTypeKind.ZodEnum:
			return `one of ${(def.values as string[]).join(', ')}`;
		case z.ZodFirstPartyTypeKind.ZodNullable:
			return `${expectedText(def.innerType as z.ZodTypeAny)} or null`;
		case z.ZodFirstPartyTypeKind.ZodOptional:
			return expectedText(def.innerType as z.ZodTypeAny);
		default:
			return String(def.typeName).replace(/^Zod/, '').toLowerCase();
	}
}
