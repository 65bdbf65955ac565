import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readItemParameter } from './itemParameters';
import { checkText, describeType, invalidField } from './parameters';

/** One field of a unit (a translation pair) as the node reads it. */
export interface UnitField {
	/** The unit's key in the API body, also the node parameter's name in "one unit per item" mode. */
	key: string;
	displayName: string;
	required: boolean;
	description: string;
	/** In "units from a field" mode, a node parameter that fills this key when a unit leaves it out. */
	fallbackFor?: boolean;
	/** Translation text keeps its spaces; codes and ids are trimmed. */
	keepWhitespace?: boolean;
}

/**
 * Parameters for reading units (translation pairs): each input item is one unit, or a field of the item
 * holds a list of units. Shared by Content Import and Memory Import Items.
 */
export function unitProperties(fields: UnitField[], listExample: string): INodeProperties[] {
	const perItem = fields.map((field) => {
		const property: INodeProperties = {
			displayName: field.displayName,
			name: field.key,
			type: 'string',
			default: '',
			// A fallback may stay empty when every unit carries its own value.
			required: field.required && !field.fallbackFor,
			description: field.description,
		};
		if (field.fallbackFor) {
			property.hint = 'With units from a field: used for the units that do not carry their own';
		} else {
			property.default = `={{ $json.${field.key} }}`;
			property.displayOptions = { show: { unitsSource: ['item'] } };
		}
		return property;
	});
	return [
		{
			displayName: 'Units Source',
			name: 'unitsSource',
			type: 'options',
			options: [
				{
					name: 'Each Input Item Is One Unit',
					value: 'item',
					description: 'Map the fields of each input item to one translation unit',
				},
				{
					name: 'Units From a Field',
					value: 'field',
					description: 'Each input item carries a list of units in one field',
				},
			],
			default: 'item',
			description: 'Where the translation units come from',
		},
		{
			displayName: 'Units',
			name: 'units',
			type: 'json',
			default: '={{ $json.units }}',
			required: true,
			displayOptions: { show: { unitsSource: ['field'] } },
			description: `A list of units, for example ${listExample}`,
		},
		...perItem,
	];
}

function parseUnitList(ctx: IExecuteFunctions, value: unknown, itemIndex: number): unknown[] {
	let list = value;
	const empty = () => invalidField(ctx, itemIndex, 'Units', 'must be a list of units, got an empty value');
	if (list === undefined || list === null) throw empty();
	if (typeof list === 'string') {
		const text = list.trim();
		if (text === '') throw empty();
		try {
			list = JSON.parse(text);
		} catch {
			throw invalidField(ctx, itemIndex, 'Units', 'must be a list of units (JSON array), got text that is not JSON');
		}
	}
	if (!Array.isArray(list)) {
		throw invalidField(ctx, itemIndex, 'Units', `must be a list of units, got ${describeType(list)}`);
	}
	return list;
}

/** Reads the units an item contributes, each checked: required fields present and text. */
export function readUnits(ctx: IExecuteFunctions, itemIndex: number, fields: UnitField[]): IDataObject[] {
	const source = readItemParameter(ctx, 'unitsSource', itemIndex, 'item');
	if (source === 'item') {
		const unit: IDataObject = {};
		for (const field of fields) {
			const value = checkText(
				ctx,
				readItemParameter(ctx, field.key, itemIndex, ''),
				field.displayName,
				itemIndex,
				field.required,
				{ trim: !field.keepWhitespace },
			);
			if (value !== undefined) unit[field.key] = value;
		}
		return [unit];
	}

	const fallbacks: IDataObject = {};
	for (const field of fields.filter((entry) => entry.fallbackFor)) {
		const value = checkText(ctx, readItemParameter(ctx, field.key, itemIndex, ''), field.displayName, itemIndex, false);
		if (value !== undefined) fallbacks[field.key] = value;
	}
	const list = parseUnitList(ctx, readItemParameter(ctx, 'units', itemIndex, undefined), itemIndex);
	if (list.length === 0) throw invalidField(ctx, itemIndex, 'Units', 'the list is empty: give at least one unit');
	return list.map((entry, position) => {
		const label = `Units > unit ${position + 1}`;
		if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
			throw invalidField(ctx, itemIndex, label, `must be an object, got ${describeType(entry)}`);
		}
		const raw = entry as IDataObject;
		const unit: IDataObject = {};
		for (const field of fields) {
			const given = raw[field.key];
			const value = checkText(
				ctx,
				given === undefined || given === null || given === '' ? fallbacks[field.key] : given,
				`${label} ${field.key}`,
				itemIndex,
				field.required,
				{ trim: !field.keepWhitespace },
			);
			if (value !== undefined) unit[field.key] = value;
		}
		return unit;
	});
}

/** Units bound for one request, with the input items they came from. */
export interface UnitBatch {
	/** What the units share (a target language, a memory id). */
	key: string;
	units: IDataObject[];
	/** The distinct input items whose units are in the batch, in order. */
	pairedItems: number[];
}

/** How large one batch may grow. */
export interface BatchLimits {
	/** Most units in one batch. */
	units: number;
	/** Most bytes the batch's units take as a JSON list; a single unit larger than this goes alone. */
	bytes?: number;
}

interface UnitEntry {
	itemIndex: number;
	unit: IDataObject;
}

/** Cuts a group into consecutive batches within the limits. */
function cutBatches(group: UnitEntry[], limits: BatchLimits): UnitEntry[][] {
	const batches: UnitEntry[][] = [];
	let current: UnitEntry[] = [];
	// The list's brackets; each unit adds its JSON and a comma.
	let currentBytes = 2;
	for (const entry of group) {
		const size = limits.bytes === undefined ? 0 : Buffer.byteLength(JSON.stringify(entry.unit), 'utf8') + 1;
		const full =
			current.length >= limits.units || (limits.bytes !== undefined && currentBytes + size > limits.bytes);
		if (current.length > 0 && full) {
			batches.push(current);
			current = [];
			currentBytes = 2;
		}
		current.push(entry);
		currentBytes += size;
	}
	if (current.length > 0) batches.push(current);
	return batches;
}

/**
 * Groups the units of all items by a key (keeping item order), then cuts each group into batches within the
 * limits: one request per key and batch instead of one per item.
 */
export function batchUnits<T extends { units: IDataObject[] }>(
	parsed: Array<{ itemIndex: number; value: T }>,
	keyOf: (value: T) => string,
	limits: BatchLimits,
): UnitBatch[] {
	const groups = new Map<string, UnitEntry[]>();
	for (const { itemIndex, value } of parsed) {
		const key = keyOf(value);
		const group = groups.get(key) ?? [];
		// A loop, not push(...spread): an item may carry more units than a call takes arguments.
		for (const unit of value.units) group.push({ itemIndex, unit });
		groups.set(key, group);
	}
	return [...groups].flatMap(([key, group]) =>
		cutBatches(group, limits).map((batch) => ({
			key,
			units: batch.map((entry) => entry.unit),
			pairedItems: [...new Set(batch.map((entry) => entry.itemIndex))],
		})),
	);
}
