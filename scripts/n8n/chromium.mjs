// Debian's chromium, headless, driven over the DevTools protocol through chromium's own pipe
// (--remote-debugging-pipe): no WebSocket and no port, so it works on any Node the tools run on. For looking at the
// real n8n editor: the editor check, the README screenshots and the editor end-to-end test. Plain Node builtins.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand, spawnGroup, stopGroup } from './process.mjs';

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
const START_TIMEOUT_MS = 30_000;

/** Installs Debian's chromium when it is missing (scripts/n8n/ensure-chromium.sh; a no-op when it is there). */
export async function ensureChromium() {
	const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ensure-chromium.sh');
	await runCommand('bash', [script], { echo: true, label: 'ensure-chromium.sh' });
}

export function newProfileDir() {
	return mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-chromium-'));
}

/**
 * One DevTools-protocol connection to chromium over its pipe: we write to its file descriptor 3 and read from its
 * 4, each message a JSON text ended by a NUL byte. Commands to a page carry that page's session id.
 */
class PipeConnection {
	constructor(child) {
		this.writer = child.stdio[3];
		this.nextId = 1;
		this.pending = new Map();
		this.closed = false;
		let buffered = '';
		child.stdio[4].setEncoding('utf8').on('data', (text) => {
			buffered += text;
			for (let end = buffered.indexOf('\0'); end >= 0; end = buffered.indexOf('\0')) {
				const message = JSON.parse(buffered.slice(0, end));
				buffered = buffered.slice(end + 1);
				this.receive(message);
			}
		});
		// Chromium gone: nothing more will answer.
		this.writer.on('error', () => undefined);
		const gone = (why) => {
			this.closed = true;
			for (const waiter of this.pending.values()) waiter.reject(new Error(`${waiter.method}: ${why}`));
			this.pending.clear();
		};
		child.once('exit', () => gone('chromium exited before answering'));
		child.once('error', (error) => gone(`chromium did not start: ${error.message}`));
	}

	receive(message) {
		// Events (no id) are not used.
		const waiter = this.pending.get(message.id);
		if (!waiter) return;
		this.pending.delete(message.id);
		if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
		else waiter.resolve(message.result);
	}

	post(method, params = {}, sessionId) {
		const id = this.nextId++;
		if (!this.closed) this.writer.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
		return id;
	}

	send(method, params = {}, sessionId) {
		if (this.closed) return Promise.reject(new Error(`${method}: chromium has exited`));
		return new Promise((resolve, reject) => {
			this.pending.set(this.post(method, params, sessionId), { resolve, reject, method });
		});
	}
}

/** A minimal DevTools-protocol client of one page (a session attached to its target). */
export class DevToolsPage {
	constructor(connection, sessionId) {
		this.connection = connection;
		this.sessionId = sessionId;
	}

	send(method, params = {}) {
		return this.connection.send(method, params, this.sessionId);
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

	/** Asks chromium to quit; no answer comes, as the pipe goes with it. */
	closeBrowser() {
		this.connection.post('Browser.close');
	}
}

/** A page expression: the visible elements matching `selector` (n8n's popups keep hidden copies of their items). */
export function visibleElements(selector) {
	return `[...document.querySelectorAll(${JSON.stringify(selector)})].filter((element) => element.getClientRects().length > 0)`;
}

/** The texts of the visible elements matching `selector`, in page order. */
export async function visibleTexts(page, selector) {
	return await page.evaluate(`${visibleElements(selector)}.map((element) => element.innerText.trim())`);
}

/**
 * A person's click: the mouse moved over the `index`th visible element matching `selector` (scrolled into view),
 * pressed and released. n8n's dropdowns open on the mouse, not on a script's click().
 */
export async function mouseClick(page, selector, index = 0) {
	const point = await page.evaluate(`(() => {
		const element = ${visibleElements(selector)}[${index}];
		if (!element) return null;
		element.scrollIntoView({ block: 'center' });
		const box = element.getBoundingClientRect();
		return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
	})()`);
	if (!point) throw new Error(`nothing visible to click: ${selector} #${index}`);
	for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) {
		await page.send('Input.dispatchMouseEvent', { type, ...point, button: 'left', clickCount: 1 });
	}
}

/** Types text where the focus is, as a keyboard would. */
export async function typeText(page, text) {
	await page.send('Input.insertText', { text });
}

/** Hides n8n's toasts, and nothing else: for a picture of an open dropdown (hideTransientUi hides those too). */
export async function hideNotifications(page) {
	await page.evaluate(`document.head.insertAdjacentHTML('beforeend', '<style>.el-notification { display: none !important; }</style>')`);
}

/** Hides what n8n lays over the page for a moment (toasts, tooltips), so that it does not cover a picture. */
export async function hideTransientUi(page) {
	await page.evaluate(`document.head.insertAdjacentHTML('beforeend', '<style>.el-notification, .el-popper, .n8n-tooltip { display: none !important; }</style>')`);
}

async function withTimeout(promise, ms, what) {
	let timer;
	try {
		return await Promise.race([promise, new Promise((resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000}s`)), ms)))]);
	} finally {
		clearTimeout(timer);
	}
}

/**
 * Starts chromium with its DevTools pipe and a fresh profile, at WINDOW size; returns its first page, the process
 * (`child`) and `stop()`, which closes chromium (its whole process group) and removes the profile.
 */
export async function startChromium() {
	const profile = newProfileDir();
	const child = spawnGroup('chromium', [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'], {
		stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
	});
	// Chromium's own log lines (GPU, D-Bus) say nothing here; reading them keeps its pipes from filling up.
	child.stdout.resume();
	child.stderr.resume();
	const connection = new PipeConnection(child);
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
		// The page of the command line's about:blank appears once chromium is up.
		const targetId = await withTimeout(
			(async () => {
				for (;;) {
					const { targetInfos } = await connection.send('Target.getTargets');
					const target = targetInfos.find((candidate) => candidate.type === 'page');
					if (target) return target.targetId;
					await new Promise((resolve) => setTimeout(resolve, 100));
				}
			})(),
			START_TIMEOUT_MS,
			'chromium opened no page to drive',
		);
		const { sessionId } = await connection.send('Target.attachToTarget', { targetId, flatten: true });
		page = new DevToolsPage(connection, sessionId);
		await page.send('Page.enable');
		await page.send('Emulation.setDeviceMetricsOverride', { ...WINDOW, deviceScaleFactor: 1, mobile: false });
		return { page, child, stop };
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
