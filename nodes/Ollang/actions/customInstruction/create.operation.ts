import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { byRefusal, writeOnce } from '../common/writeOnce';
import { forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkText, readText } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import { checkInstructionKey, fetchInstructions, instructionKeyHint } from './instructions';

const properties: INodeProperties[] = [
	{
		displayName: 'Key',
		name: 'key',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. tone_professional',
		hint: instructionKeyHint,
		description: 'Unique machine ID of the instruction in the account; a key that exists already is refused (409)',
	},
	{
		displayName: 'Instruction',
		name: 'value',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Use a professional, formal tone and address the reader as "you".',
		description: 'The instruction text that the translators and the AI follow on every order of the account',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Description',
				name: 'description',
				type: 'string',
				default: '',
				description: 'What the instruction is for, for people reading the list',
			},
		],
	},
];

export const description = forPaidWrite('customInstruction', 'create', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const key = checkInstructionKey(this, this.getNodeParameter('key', itemIndex, ''), 'Key', itemIndex);
	const value = readText(this, 'value', 'Instruction', itemIndex);
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = { key, value };
	const instructionDescription = checkText(this, additionalFields.description, 'Description', itemIndex, false);
	if (instructionDescription !== undefined) body.description = instructionDescription;
	const request: OllangRequest = {
		method: 'POST',
		path: '/integration/custom-instructions',
		body,
		// Creates an instruction: a blind repeat could answer 409 for the one it made, or make it twice.
		retry: 'once',
		itemIndex,
		errorHints: {
			'409': 'An instruction with this key exists already: use Update to change it, or choose another key.',
		},
	};
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => requireObject.call(this, request, await apiRequest.call(this, request), ['id']),
		// A repeat answers 409 (the key exists): applied when the instruction under this key says what was asked.
		lostAnswer: byRefusal([409], async () =>
			(await fetchInstructions.call(this, itemIndex)).find(
				(instruction) => instruction.key === key && instruction.value === value,
			)),
	});
	return toResults(json);
}
