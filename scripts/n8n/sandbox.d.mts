// Types of sandbox.mjs for the TypeScript that imports it (the end-to-end tests). Keep in step with sandbox.mjs.
import type { ChildProcess } from 'node:child_process';

export interface SandboxReady {
	baseUrl: string;
	keys: { owner: string; billing: string; member: string };
	/** The storage host serving the order documents behind signed links. */
	filesOrigin: string;
}

export interface SandboxProcess {
	child: ChildProcess;
	info: SandboxReady;
	stop(): Promise<void>;
}

export function startSandboxProcess(args?: string[], options?: { onLine?: (line: string) => void }): Promise<SandboxProcess>;

export interface SandboxCredentialRef {
	id: string;
	name: string;
}

export const SANDBOX_CREDENTIALS: Readonly<Record<'owner' | 'billing' | 'member', Readonly<SandboxCredentialRef>>>;

export function sandboxCredentials(
	info: SandboxReady,
): Array<SandboxCredentialRef & { type: 'ollangApi'; data: { apiKey: string; baseUrl: string } }>;
