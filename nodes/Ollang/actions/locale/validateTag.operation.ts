import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest, pathIdProblem } from '../../transport';
import { forReadOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { invalidField, readText } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName: 'Language Tag',
		name: 'tag',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. pt-PT',
		description:
			'The tag to check against the Ollang catalogue. The answer says whether it is valid, the code the platform uses for it (pt-BR is pt, en-GB is en-UK), its language and region, or why not.',
	},
];

export const description = forReadOperation('locale', 'validateTag', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const tag = readText(this, 'tag', 'Language Tag', itemIndex);
	// The tag is one URL-encoded path segment; a "/" or ".." could not stay in it (and no tag holds one).
	const problem = pathIdProblem(tag);
	if (problem !== undefined) {
		throw invalidField(
			this,
			itemIndex,
			'Language Tag',
			`"${tag}" is not a tag: it ${problem} (write tags with "-", e.g. pt-PT)`,
		);
	}
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/locales/validate/${tag}`,
		retry: 'safe',
		itemIndex,
	};
	return toResults({ tag, ...requireObject.call(this, request, await apiRequest.call(this, request), ['valid']) });
}
