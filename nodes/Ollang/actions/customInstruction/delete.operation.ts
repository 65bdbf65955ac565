import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { instructionIdField } from './instructions';

const properties: INodeProperties[] = [
	{
		displayName: 'Deletes the instruction permanently; orders created from now on no longer follow it',
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
	await apiRequest.call(this, {
		method: 'DELETE',
		path: apiPath`/integration/custom-instructions/${instructionId}`,
		// A repeat after an unclear failure would answer 404 and hide the deletion: not repeated blindly.
		retry: 'once',
		expectBody: false,
		itemIndex,
	});
	return toResults({ success: true, instructionId, deleted: true });
}
