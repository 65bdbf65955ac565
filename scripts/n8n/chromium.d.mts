// Types of chromium.mjs for the TypeScript that imports it (the end-to-end tests). Keep in step with chromium.mjs.
import type { ChildProcess } from 'node:child_process';

export const WINDOW: Readonly<{ width: number; height: number }>;
export const CHROMIUM_FLAGS: readonly string[];

export function ensureChromium(): Promise<void>;
export function newProfileDir(): string;

/** A minimal DevTools-protocol client of one page. */
export class DevToolsPage {
	private constructor();
	send<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
	/** The value of a page expression (returned by value; a promise is awaited). */
	evaluate<T = unknown>(expression: string): Promise<T>;
	/** Polls a page expression until it is truthy; returns that value. */
	waitFor<T = unknown>(expression: string, what: string, timeoutMs?: number): Promise<T>;
	navigate(url: string): Promise<void>;
	click(selector: string, what?: string): Promise<void>;
	screenshot(file: string): Promise<void>;
	closeBrowser(): void;
}

export function hideTransientUi(page: DevToolsPage): Promise<void>;
export function hideNotifications(page: DevToolsPage): Promise<void>;
/** A page expression: the visible elements matching `selector`. */
export function visibleElements(selector: string): string;
export function visibleTexts(page: DevToolsPage, selector: string): Promise<string[]>;
/** The mouse pressed and released over the `index`th visible element matching `selector`. */
export function mouseClick(page: DevToolsPage, selector: string, index?: number): Promise<void>;
export function typeText(page: DevToolsPage, text: string): Promise<void>;

export interface RunningChromium {
	page: DevToolsPage;
	child: ChildProcess;
	stop(): Promise<void>;
}

export function startChromium(): Promise<RunningChromium>;
export function signInThroughForm(page: DevToolsPage, editorUrl: string, owner: { email: string; password: string }): Promise<void>;
