import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkBoolean, checkText, invalidField, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import { checkInstructionKey, instructionIdField, instructionKeyHint } from './instructions';

const properties: INodeProperties[] = [
	instructionIdField('ID of the custom instruction to change'),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'What to change; at least one field. Fields not added stay as they are.',
		options: [
			{
				displayName: 'Active',
				name: 'active',
				type: 'boolean',
				default: true,
				description: 'Whether the instruction applies to orders; turn off to keep it without applying it',
			},
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				description: 'What the instruction is for; empty clears it',
			},
			{
				displayName: 'Instruction',
				name: 'value',
				type: 'string',
				typeOptions: { rows: 4 },
				default: '',
				description: 'The new instruction text',
			},
			{
				displayName: 'Key',
				name: 'key',
				type: 'string',
				default: '',
				placeholder: 'e.g. tone_professional',
				hint: instructionKeyHint,
				description: 'A new unique machine ID; a key another instruction has is refused (409)',
			},
		],
	},
];

export const description = forOperation('customInstruction', 'update', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const instructionId = readId(this, 'instructionId', 'Custom Instruction', itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.key !== undefined) body.key = checkInstructionKey(this, fields.key, 'Key', itemIndex);
	if (fields.value !== undefined) body.value = checkText(this, fields.value, 'Instruction', itemIndex, true);
	const active = checkBoolean(this, fields.active, 'Active', itemIndex, undefined);
	if (active !== undefined) body.active = active;
	if (fields.description !== undefined) {
		body.description = checkText(this, fields.description, 'Description', itemIndex, false) ?? null;
	}
	if (Object.keys(body).length === 0) {
		throw invalidField(this, itemIndex, 'Update Fields', 'add at least one of Key, Instruction, Active or Description');
	}
	const request: OllangRequest = {
		method: 'PATCH',
		path: apiPath`/integration/custom-instructions/${instructionId}`,
		body,
		// Setting the same fields twice has the same effect as once.
		retry: 'safe',
		itemIndex,
		errorHints: { '409': 'Another instruction has this key: choose another one.' },
	};
	return toResults(requireObject.call(this, request, await apiRequest.call(this, request), ['id']));
}
