import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { sendOrConfirm } from '../common/alreadyApplied';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { fetchInstructions, instructionIdField } from './instructions';

const properties: INodeProperties[] = [
	{
		displayName: 'Deletes the instruction permanently; orders created from now on no longer follow it.',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
	instructionIdField('ID of the custom instruction to delete'),
];

export const description = forOperation('customInstruction', 'delete', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const instructionId = checkId(
		this,
		this.getNodeParameter('instructionId', itemIndex, ''),
		'Instruction ID',
		itemIndex,
	);
	const path = apiPath`/integration/custom-instructions/${instructionId}`;
	const json = await sendOrConfirm(this, itemIndex, {
		send: async () => {
			await apiRequest.call(this, {
				method: 'DELETE',
				path,
				// A repeat after an unclear failure would answer 404 and hide the deletion: not repeated blindly.
				retry: 'once',
				expectBody: false,
				itemIndex,
			});
			return { success: true, instructionId, deleted: true };
		},
		// A repeat answers 404: the thing is gone, as asked.
		refusals: [404],
		// The API has no read of one instruction: the account's list no longer holds it.
		confirm: async () => {
			const gone = !(await fetchInstructions.call(this, itemIndex)).some((instruction) => String(instruction.id) === instructionId);
			return gone ? { success: true, instructionId, deleted: true } : undefined;
		},
	});
	return toResults(json);
}
