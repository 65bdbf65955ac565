import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { removeOnce, writeOnce } from '../common/writeOnce';
import { forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { fetchInstructions, instructionIdField } from './instructions';

const properties: INodeProperties[] = [
	{
		displayName: 'Deletes the instruction permanently; orders created from now on no longer follow it',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
	instructionIdField('ID of the custom instruction to delete'),
];

export const description = forPaidWrite('customInstruction', 'delete', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const instructionId = readId(this, 'instructionId', 'Custom Instruction', itemIndex);
	const json = await writeOnce(this, itemIndex, removeOnce(this, itemIndex, {
		path: apiPath`/integration/custom-instructions/${instructionId}`,
		// The API has no read of one instruction: the account's list no longer holds it.
		isGone: async () => !(await fetchInstructions.call(this, itemIndex)).some((instruction) => String(instruction.id) === instructionId),
		applied: { success: true, instructionId, deleted: true },
	}));
	return toResults(json);
}
