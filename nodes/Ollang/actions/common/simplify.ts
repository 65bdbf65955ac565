import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { isRecord } from './responses';

/**
 * The Simplify toggle of the operations with large answers. On by default: small items suit a person reading the
 * output and an AI agent calling the node as a tool, whose context the raw answer would fill.
 */
export function simplifyField(whatIsKept: string): INodeProperties {
	const description = [
		'Whether to return a simplified version of the response instead of the raw data.',
		whatIsKept,
	].join(' ');
	return {
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description,
	};
}

export function isSimplified(ctx: IExecuteFunctions, itemIndex: number): boolean {
	return ctx.getNodeParameter('simplify', itemIndex, false) === true;
}

/** The listed fields of a record that it has (absent ones are left out, not set to null). */
export function pick(record: IDataObject, fields: readonly string[]): IDataObject {
	const picked: IDataObject = {};
	for (const field of fields) if (record[field] !== undefined) picked[field] = record[field];
	return picked;
}

/** The objects of a list (anything else, or no list, gives none). */
export function records(value: unknown): IDataObject[] {
	return Array.isArray(value) ? value.filter(isRecord) : [];
}
