import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { customInstructionLocator } from '../common/fields';
import { checkText, invalidField } from '../common/parameters';
import { requireList } from '../common/responses';

/** What the API takes as an instruction key: a machine id such as tone_professional (or brandNames). */
const MACHINE_ID = /^[A-Za-z][A-Za-z0-9_]*$/;
const MAX_KEY_LENGTH = 100;

export function checkInstructionKey(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string {
	const key = checkText(ctx, value, field, itemIndex, true) as string;
	if (!MACHINE_ID.test(key) || key.length > MAX_KEY_LENGTH) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`"${key}" is not a machine ID: start with a letter, then only letters, digits or underscores, at most ${MAX_KEY_LENGTH} characters (e.g. tone_professional)`,
		);
	}
	return key;
}

export const instructionKeyHint = 'A machine ID such as tone_professional: letters, digits and underscores';

export function instructionIdField(description: string): INodeProperties {
	return customInstructionLocator(description);
}

/** Every custom instruction of the account: the API answers them all at once (no paging). */
export async function fetchInstructions(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const request: OllangRequest = {
		method: 'GET',
		path: '/integration/custom-instructions',
		retry: 'safe',
		itemIndex,
	};
	return requireList.call(this, request, await apiRequest.call(this, request));
}

/** One instruction by ID, found in the account's list (the API has no endpoint for one instruction). */
export async function findInstruction(
	this: IExecuteFunctions,
	instructionId: string,
	itemIndex: number,
): Promise<IDataObject> {
	const instructions = await fetchInstructions.call(this, itemIndex);
	const found = instructions.find((instruction) => String(instruction.id) === instructionId);
	if (found !== undefined) return found;
	throw new NodeOperationError(
		this.getNode(),
		`Invalid Custom Instruction (item ${itemIndex}): no custom instruction has the ID "${instructionId}"`,
		{
			itemIndex,
			description: `The API cannot get one instruction by ID, so the node listed the account's ${instructions.length} instructions; none has this ID. Use Get Many to see them.`,
		},
	);
}
