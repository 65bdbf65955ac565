import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import type { OllangRequest } from '../transport';
import { apiRequest } from '../transport';
import { requireList } from '../actions/common/responses';

/** Every memory (the API lists them whole), sorted by title, optionally filtered by title. */
export async function listMemories(this: ILoadOptionsFunctions, filter?: string): Promise<IDataObject[]> {
	const request: OllangRequest = { method: 'GET', path: '/integration/memories', retry: 'safe' };
	const needle = filter?.trim().toLowerCase();
	return requireList
		.call(this, request, await apiRequest.call(this, request))
		.filter((memory) => !needle || String(memory.title ?? '').toLowerCase().includes(needle))
		.sort((a, b) => String(a.title ?? '').localeCompare(String(b.title ?? '')));
}

export function memoryLabel(memory: IDataObject): string {
	const count = typeof memory.memoryItemsCount === 'number' ? ` (${memory.memoryItemsCount} units)` : '';
	return `${String(memory.title ?? memory.id)}${count}`;
}
