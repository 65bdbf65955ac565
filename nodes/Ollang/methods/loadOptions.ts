import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { apiRequestAllPages } from '../transport';
import { languageOptions } from './languages';
import { listMemories, memoryLabel } from './memories';

/** Memories for the "Memory Names or IDs" choice of Create Order. */
export async function getMemories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const memories = await listMemories.call(this);
	return memories.map((memory) => ({ name: memoryLabel(memory), value: String(memory.id) }));
}

/** Every folder, by name, for the "Folder Names or IDs" choice of Folder > Export XLSX. */
export async function getFolders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const folders = (await apiRequestAllPages.call(
		this,
		{ method: 'GET', path: '/integration/folder', qs: { orderBy: 'name', orderDirection: 'asc' }, retry: 'safe' },
		{ returnAll: true, style: 'flat', rowTimeKey: 'createdAt' },
	)) as IDataObject[];
	return folders.map((folder) => ({ name: String(folder.name ?? folder.id), value: String(folder.id) }));
}

/** The API's languages and their variants (Locale > Get Languages), for every language field. */
export async function getLanguages(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return await languageOptions.call(this);
}

/** The languages, after "Detect Automatically" (all): Upload VTT's source language. */
export async function getLanguagesOrDetect(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return [
		{ name: 'Detect Automatically', value: 'all', description: 'The service detects the language' },
		...(await languageOptions.call(this)),
	];
}
