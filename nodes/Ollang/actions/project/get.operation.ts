import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forReadOperation, projectLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	projectLocator(
		'The project to get, with its documents (source file, guidelines, subtitles) and how many orders were made from it',
	),
];

export const description = forReadOperation('project', 'get', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const projectId = readId(this, 'projectId', 'Project', itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/project/${projectId}`,
		retry: 'safe',
		itemIndex,
		errorHints: {
			'400': 'A project ID is 24 hexadecimal characters (a MongoDB ObjectId), e.g. 6650f1c2a4b3e2d1c0b9a8f7.',
		},
	};
	const project = await apiRequest.call(this, request);
	return toResults(requireObject.call(this, request, project, ['id']));
}
