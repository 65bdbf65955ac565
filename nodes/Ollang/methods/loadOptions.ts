import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { listMemories, memoryLabel } from './memories';

/** Memories for the "Memory Names or IDs" choice of Create Order. */
export async function getMemories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const memories = await listMemories.call(this);
	return memories.map((memory) => ({ name: memoryLabel(memory), value: String(memory.id) }));
}
