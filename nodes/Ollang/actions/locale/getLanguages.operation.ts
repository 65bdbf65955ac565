import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forReadOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName: 'Variants as Separate Items',
		name: 'flattenVariants',
		type: 'boolean',
		default: false,
		description:
			"Whether each regional or script variant (pt-PT, es-MX, zh-Hant…) becomes an item of its own, with baseCode naming its language, instead of staying in its language's variants list",
	},
];

export const description = forReadOperation('locale', 'getLanguages', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const flatten = this.getNodeParameter('flattenVariants', itemIndex, false) as boolean;
	const request: OllangRequest = { method: 'GET', path: '/integration/locales/languages', retry: 'safe', itemIndex };
	const languages = requireList.call(this, request, await apiRequest.call(this, request));
	if (!flatten) return toResults(languages);
	return toResults(
		languages.flatMap((language) => {
			const { variants, ...base } = language;
			const list = Array.isArray(variants) ? (variants as IDataObject[]) : [];
			return [base, ...list.map((variant) => ({ ...variant, baseCode: base.code }))];
		}),
	);
}
