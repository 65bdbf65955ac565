// Debian's chromium, headless, driven over the DevTools protocol with the WebSocket built into Node 22+ (on Node 20,
// see `ensureWebSocket`). For looking at the real n8n editor: the editor check and the README screenshots. Plain
// Node builtins.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forEachLine, spawnGroup, stopGroup } from './process.mjs';

export const WINDOW = Object.freeze({ width: 1440, height: 900 });

// The flags these machines need: no sandbox as root, no GPU, and nothing that phones home (there is no internet,
// and Chromium's background connections would otherwise fail at every start).
export const CHROMIUM_FLAGS = Object.freeze([
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	`--window-size=${WINDOW.width},${WINDOW.height}`,
]);

const PAGE_TIMEOUT_MS = 60_000;

/**
 * The DevTools client needs a WebSocket: built into Node 22+, behind --experimental-websocket on Node 20. Without
 * one, this runs the calling script again with the flag and exits with its exit code; call it before anything else.
 */
export function ensureWebSocket() {
	if (typeof WebSocket !== 'undefined') return;
	const rerun = spawnSync(process.execPath, ['--experimental-websocket', ...process.argv.slice(1)], { stdio: 'inherit' });
	process.exit(rerun.status ?? 1);
}

export function newProfileDir() {
	return mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-chromium-'));
}

/** A minimal DevTools-protocol client over one page's WebSocket. */
export class DevToolsPage {
	static async connect(webSocketUrl) {
		const socket = new WebSocket(webSocketUrl);
		await new Promise((resolve, reject) => {
			socket.addEventListener('open', resolve, { once: true });
			socket.addEventListener('error', () => reject(new Error(`cannot connect to ${webSocketUrl}`)), { once: true });
		});
		return new DevToolsPage(socket);
	}

	constructor(socket) {
		this.socket = socket;
		this.nextId = 1;
		this.pending = new Map();
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(event.data);
			const waiter = this.pending.get(message.id);
			if (!waiter) return;
			this.pending.delete(message.id);
			if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
			else waiter.resolve(message.result);
		});
	}

	send(method, params = {}) {
		const id = this.nextId++;
		this.socket.send(JSON.stringify({ id, method, params }));
		return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
	}

	async evaluate(expression) {
		const { result, exceptionDetails } = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
		if (exceptionDetails) throw new Error(`in the page: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
		return result.value;
	}

	/** Polls a page expression until it is truthy. */
	async waitFor(expression, what, timeoutMs = PAGE_TIMEOUT_MS) {
		const started = Date.now();
		for (;;) {
			const value = await this.evaluate(expression).catch(() => undefined);
			if (value) return value;
			if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}

	async navigate(url) {
		await this.send('Page.navigate', { url });
	}

	/** Clicks the first element matching `selector` (a CSS selector), as a script click. */
	async click(selector, what = selector) {
		const clicked = await this.evaluate(`(() => { const element = document.querySelector(${JSON.stringify(selector)}); if (!element) return false; element.click(); return true; })()`);
		if (!clicked) throw new Error(`nothing to click for ${what} (${selector})`);
	}

	async screenshot(file) {
		const { data } = await this.send('Page.captureScreenshot', { format: 'png' });
		writeFileSync(file, Buffer.from(data, 'base64'));
	}

	/** Asks chromium to quit; no answer comes, as the connection goes with it. */
	closeBrowser() {
		if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ id: this.nextId++, method: 'Browser.close' }));
	}
}

/**
 * Starts chromium with a DevTools port and a fresh profile, at WINDOW size; returns its first page and `stop()`,
 * which closes chromium and removes the profile.
 */
export async function startChromium() {
	const profile = newProfileDir();
	const child = spawnGroup('chromium', [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank']);
	let page;
	const stop = async () => {
		// Closed through DevTools, chromium removes its /tmp/org.chromium.Chromium.* folder, which a signal leaves behind.
		if (page && child.exitCode === null && child.signalCode === null) {
			page.closeBrowser();
			let timer;
			await Promise.race([once(child, 'exit'), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
			clearTimeout(timer);
		}
		await stopGroup(child, { graceMs: 5000 });
		rmSync(profile, { recursive: true, force: true });
	};
	try {
		const port = await new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error('chromium did not open its DevTools port within 30s')), 30_000);
			forEachLine(child, (line) => {
				const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(line);
				if (match) {
					clearTimeout(timer);
					resolve(Number(match[1]));
				}
			});
			child.once('exit', (code) => reject(new Error(`chromium exited (code ${code}) before opening its DevTools port`)));
		});
		const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
		const target = targets.find((candidate) => candidate.type === 'page');
		if (!target) throw new Error('chromium has no page to drive');
		page = await DevToolsPage.connect(target.webSocketDebuggerUrl);
		await page.send('Page.enable');
		await page.send('Emulation.setDeviceMetricsOverride', { ...WINDOW, deviceScaleFactor: 1, mobile: false });
		return { page, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

/** Signs in to the n8n editor through its form, like a person. */
export async function signInThroughForm(page, editorUrl, owner) {
	await page.navigate(`${editorUrl}/signin`);
	await page.waitFor(`!!document.querySelector('input[name="emailOrLdapLoginId"]')`, 'the sign-in form');
	for (const [selector, text] of [
		['input[name="emailOrLdapLoginId"]', owner.email],
		['input[name="password"]', owner.password],
	]) {
		await page.evaluate(`document.querySelector('${selector}').focus()`);
		await page.send('Input.insertText', { text });
	}
	await page.click('[data-test-id="form-submit-button"]', 'the sign-in button');
	await page.waitFor(`!location.pathname.startsWith('/signin')`, 'the editor to leave the sign-in page');
}
