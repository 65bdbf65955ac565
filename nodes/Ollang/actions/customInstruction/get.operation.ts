import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { forReadOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { findInstruction, instructionIdField } from './instructions';

const properties: INodeProperties[] = [
	// The API has no endpoint for one instruction: execute lists them and picks the one with this ID, and fails
	// naming the ID when none has it.
	instructionIdField('ID of the custom instruction to get, as Create or Get Many return it'),
];

export const description = forReadOperation('customInstruction', 'get', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const instructionId = readId(this, 'instructionId', 'Custom Instruction', itemIndex);
	return toResults(await findInstruction.call(this, instructionId, itemIndex));
}
