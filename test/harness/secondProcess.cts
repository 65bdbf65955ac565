// A second n8n process in one jest process, for guarantees that must hold in queue mode: the Ollang node loaded again
// in a module registry of its own, so it has its own module-level state (the deduplication store's turn-taking, the
// run caches) as another worker would, while it shares n8n-workflow and the harness's store (one database) with the
// first. Its type name differs; the node in the workflow (name, id, so its static data and store row) is the same.
import type { INodeType } from 'n8n-workflow';
import { forgetRecords } from '../../nodes/Ollang/actions/common/writeOnce/records';
import { OLLANG_NODE_TYPE, registerNodeType } from './runtime.cts';

export const OLLANG_NODE_TYPE_SECOND_PROCESS = `${OLLANG_NODE_TYPE}SecondProcess`;

let registered = false;
/** The second process's own memory of sent items (its copy of writeOnce/records.ts). */
let forgetSecondProcessRecords: (() => void) | undefined;

/** Both processes forget what they sent (memory only): with a cleared store, a new n8n as far as a test can tell. */
export function forgetSentItems(): void {
	forgetRecords();
	forgetSecondProcessRecords?.();
}

/** Registers the second process's copy of the node (once per test file); returns its type name. */
export function secondProcessNodeType(): string {
	if (registered) return OLLANG_NODE_TYPE_SECOND_PROCESS;
	// The copy must see the same n8n-workflow: the engine checks its errors' classes.
	const workflow = require('n8n-workflow') as unknown;
	let copy: INodeType | undefined;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflow);
		const { Ollang } = require('../../nodes/Ollang/Ollang.node.ts') as { Ollang: new () => INodeType };
		copy = new Ollang();
		forgetSecondProcessRecords = (require('../../nodes/Ollang/actions/common/writeOnce/records.ts') as { forgetRecords: () => void }).forgetRecords;
	});
	registerNodeType(OLLANG_NODE_TYPE_SECOND_PROCESS, copy!);
	registered = true;
	return OLLANG_NODE_TYPE_SECOND_PROCESS;
}
