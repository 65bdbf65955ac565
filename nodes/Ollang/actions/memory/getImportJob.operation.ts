import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { forReadOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { fetchImportJob } from './importJobs';

const properties: INodeProperties[] = [
	{
		displayName: 'Job ID',
		name: 'jobId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7',
		description: 'The jobId that Import Items returned (there is no list of jobs)',
	},
];

export const description = forReadOperation('memory', 'getImportJob', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const jobId = readId(this, 'jobId', 'Job ID', itemIndex);
	return toResults(await fetchImportJob.call(this, jobId, itemIndex));
}
