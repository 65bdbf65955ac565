import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

// n8n evaluates every expression in an isolate (about half a millisecond each), and unit fields default to
// `={{ $json.<field> }}`: read per item over thousands of items, evaluation is most of an import's time. Where a
// parameter is a fixed value, or an expression that only reads one field of the input item, the value is taken
// directly, as the expression would give it; anything else goes through getNodeParameter.

/** `={{ $json.<identifier> }}` and nothing else: the whole parameter reads one field of the input item. */
const PLAIN_FIELD_REFERENCE = /^=\{\{\s*\$json\.([A-Za-z_$][\w$]*)\s*\}\}$/;

/** Values an expression hands back unchanged: JSON's own. Anything else is left to the expression engine. */
function isPlainJson(value: unknown): boolean {
	if (value === null) return true;
	if (Array.isArray(value)) return true;
	const type = typeof value;
	if (type === 'string' || type === 'boolean') return true;
	if (type === 'number') return Number.isFinite(value);
	if (type !== 'object') return false;
	const prototype = Object.getPrototypeOf(value) as unknown;
	return prototype === Object.prototype || prototype === null;
}

/**
 * The value a raw parameter gives for an item without evaluating anything, or undefined when the expression
 * engine must decide: an expression other than a plain field reference, or a field the item does not hold as
 * plain JSON (a missing field goes the general way too, so it fails exactly as it always has).
 */
function directValue(ctx: IExecuteFunctions, raw: unknown, itemIndex: number): { value: unknown } | undefined {
	if (typeof raw !== 'string') return undefined;
	if (!raw.startsWith('=')) return { value: raw };
	const field = PLAIN_FIELD_REFERENCE.exec(raw)?.[1];
	if (field === undefined) return undefined;
	const json: IDataObject | undefined = ctx.getInputData()[itemIndex]?.json;
	if (json === undefined || !Object.prototype.hasOwnProperty.call(json, field)) return undefined;
	const value = json[field];
	return isPlainJson(value) ? { value } : undefined;
}

/** A parameter's value for an item, the same as getNodeParameter gives, read directly where it can be. */
export function readItemParameter(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	fallback: unknown,
): unknown {
	const raw = ctx.getNodeParameter(name, itemIndex, fallback, { rawExpressions: true }) as unknown;
	const direct = directValue(ctx, raw, itemIndex);
	return direct !== undefined ? direct.value : ctx.getNodeParameter(name, itemIndex, fallback);
}

/** Resource locator modes whose value is the ID itself (no extraction from a link). */
const ID_VALUE_MODES = new Set(['id', 'list']);

/** The ID a resource locator gives for an item, the same as getNodeParameter with extractValue gives. */
export function readLocatorId(ctx: IExecuteFunctions, name: string, itemIndex: number): unknown {
	const raw = ctx.getNodeParameter(name, itemIndex, '', { rawExpressions: true }) as unknown;
	if (raw !== null && typeof raw === 'object' && ID_VALUE_MODES.has(String((raw as IDataObject).mode))) {
		const direct = directValue(ctx, (raw as IDataObject).value, itemIndex);
		if (direct !== undefined) return direct.value;
	}
	return ctx.getNodeParameter(name, itemIndex, '', { extractValue: true }) as unknown;
}
