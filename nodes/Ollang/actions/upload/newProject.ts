import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../transport';
import type { LostAnswer } from '../common/writeOnce';
import { byListing } from '../common/writeOnce';
import { records } from '../common/simplify';

// A write that creates one project (Upload File, Upload from URL, Project > Create from URL) whose answer was lost is
// settled from the projects listing: a new project whose name holds the name sent (the service may add the file's
// extension), of the source language (and folder) asked for.

export interface ProjectAsked {
	name: string;
	sourceLanguage: string;
	folderId?: string;
}

/** How a lost answer of a write that creates the project asked for is read back; `output` makes the item's json of it. */
export function projectSettlement(
	ctx: IExecuteFunctions,
	itemIndex: number,
	asked: ProjectAsked,
	output: (project: IDataObject) => IDataObject | Promise<IDataObject>,
): LostAnswer {
	// The newest projects whose name contains the name: one page, newest first.
	const newestNamed = async () =>
		records(
			(
				(await apiRequest.call(ctx, {
					method: 'GET',
					path: '/integration/project',
					qs: { search: asked.name, orderBy: 'createdAt', orderDirection: 'desc', take: 50 },
					retry: 'safe',
					itemIndex,
				})) as IDataObject | undefined
			)?.data,
		);
	const name = asked.name.toLowerCase();
	const language = asked.sourceLanguage.toLowerCase();
	const isAsked = (project: IDataObject) =>
		String(project.name ?? '').toLowerCase().includes(name) &&
		String(project.sourceLanguage ?? '').toLowerCase() === language &&
		(asked.folderId === undefined || project.folderId === asked.folderId);
	return byListing(newestNamed, isAsked, async ([project]) => await output(project));
}
