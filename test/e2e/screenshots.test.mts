// `npm run screenshots` (scripts/n8n/screenshots.mjs) run whole, as a smoke, into a temporary --out-dir: it must write
// every picture it promises, one per example workflow (examples/*.json) and the four of the nodes' panels, and each
// must be a complete PNG (signature, every chunk's checksum, the image data inflating to its size) at the window
// size chromium draws at (1440x900). The pictures' content is not compared: that is for a person reading the README.
// Also: the pictures the README and docs/ show are all ones the script takes, and docs/images is left as it was.
//
// It cannot share another file's n8n: what a refactor could break is the script's own start (its sandbox with the
// demo data, the packed package installed in its user folder, its credentials and the examples imported, its n8n,
// chromium signed in through the form), so the script starts all of that itself, as `npm run screenshots` does.
// Chromium: the script installs it when missing (ensureChromium, scripts/n8n/ensure-chromium.sh, as the editor's
// file does); under `npm test` the background prefetch has installed it before the first end-to-end stage.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, inflateSync } from 'node:zlib';

import { WINDOW } from '../../scripts/n8n/chromium.mjs';
import { REPO_ROOT } from '../../scripts/n8n/runtime.mjs';
import { descendants } from '../harness/processTree.cts';
import { EXAMPLES_DIR } from './harness.mts';

const IMAGES_DIR = path.join(REPO_ROOT, 'docs', 'images');
/** The panels the script takes beside the examples: Ollang's and the trigger's output, Order > Create's two pickers. */
const PANEL_PICTURES = ['ollang-node-panel.png', 'ollang-trigger-panel.png', 'ollang-project-list.png', 'ollang-language-dropdown.png'];
const EXAMPLE_PICTURES = readdirSync(EXAMPLES_DIR)
	.filter((name) => name.endsWith('.json'))
	.map((name) => `example-${path.basename(name, '.json')}.png`);
const PROMISED = [...EXAMPLE_PICTURES, ...PANEL_PICTURES].sort();

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Bytes per pixel at bit depth 8, by PNG colour type (grey, RGB, palette, grey + alpha, RGBA). */
const BYTES_PER_PIXEL: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * A PNG file read as a decoder would: its size from IHDR, and what is wrong with it (nothing for a complete, valid
 * file): the signature, IHDR first, every chunk whole with its CRC right, IEND last, and the IDAT data inflating to
 * exactly one filter byte plus one row of pixels per row.
 */
function readPng(file: string): { width: number; height: number; problems: string[] } {
	const data = readFileSync(file);
	const problems: string[] = [];
	if (!data.subarray(0, 8).equals(PNG_SIGNATURE)) return { width: 0, height: 0, problems: ['no PNG signature'] };
	let width = 0;
	let height = 0;
	let header: { bitDepth: number; colourType: number; interlace: number } | undefined;
	const imageData: Buffer[] = [];
	let ended = false;
	for (let offset = 8; offset < data.length && !ended; ) {
		if (offset + 12 > data.length) {
			problems.push(`a chunk cut off at byte ${offset}`);
			break;
		}
		const length = data.readUInt32BE(offset);
		const type = data.toString('latin1', offset + 4, offset + 8);
		if (offset + 12 + length > data.length) {
			problems.push(`the ${type} chunk at byte ${offset} is cut off`);
			break;
		}
		const body = data.subarray(offset + 8, offset + 8 + length);
		if (crc32(data.subarray(offset + 4, offset + 8 + length)) !== data.readUInt32BE(offset + 8 + length)) problems.push(`the ${type} chunk at byte ${offset} fails its CRC`);
		if (offset === 8) {
			if (type !== 'IHDR' || length !== 13) problems.push(`the first chunk is ${type}, not IHDR`);
			else {
				width = body.readUInt32BE(0);
				height = body.readUInt32BE(4);
				header = { bitDepth: body[8], colourType: body[9], interlace: body[12] };
			}
		}
		if (type === 'IDAT') imageData.push(body);
		if (type === 'IEND') ended = true;
		offset += 12 + length;
	}
	if (!ended) problems.push('no IEND chunk');
	if (imageData.length === 0) problems.push('no image data (IDAT)');
	else if (header !== undefined) {
		const bytesPerPixel = BYTES_PER_PIXEL[header.colourType];
		if (header.bitDepth !== 8 || bytesPerPixel === undefined || header.interlace !== 0) {
			problems.push(`bit depth ${header.bitDepth}, colour type ${header.colourType}, interlace ${header.interlace}: not chromium's 8-bit, non-interlaced PNG`);
		} else {
			let inflated: Buffer | undefined;
			try {
				inflated = inflateSync(Buffer.concat(imageData));
			} catch (error) {
				problems.push(`its image data does not inflate: ${(error as Error).message}`);
			}
			const expected = height * (1 + width * bytesPerPixel);
			if (inflated !== undefined && inflated.length !== expected) problems.push(`its image data holds ${inflated.length} bytes, not the ${expected} of ${width}x${height} pixels`);
		}
	}
	return { width, height, problems };
}

/** Every file of `dir` with a hash of its content. */
function contents(dir: string): Map<string, string> {
	return new Map(readdirSync(dir).map((name) => [name, createHash('sha256').update(readFileSync(path.join(dir, name))).digest('hex')]));
}

/** The docs/images pictures README.md and docs/*.md show. */
function picturesTheDocsShow(): Map<string, string[]> {
	const shownBy = new Map<string, string[]>();
	const docs = [path.join(REPO_ROOT, 'README.md'), ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.join(REPO_ROOT, 'docs', name))];
	for (const doc of docs) {
		for (const [, name] of readFileSync(doc, 'utf8').matchAll(/\bimages\/([\w.-]+\.png)\b/g)) {
			shownBy.set(name, [...(shownBy.get(name) ?? []), path.relative(REPO_ROOT, doc)]);
		}
	}
	return shownBy;
}

describe('npm run screenshots: every picture it promises, each a complete PNG at the window size', { timeout: 15 * 60_000 }, () => {
	const outDir = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-e2e-screenshots-'));
	const imagesBefore = contents(IMAGES_DIR);
	let script: ChildProcess | undefined;
	let run: { code: number | null; signal: NodeJS.Signals | null; output: string; seconds: number } | undefined;

	before(async () => {
		const started = Date.now();
		script = spawn('npm', ['run', 'screenshots', '--', '--out-dir', outDir], { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		script.stdout!.setEncoding('utf8').on('data', (text: string) => (output += text));
		script.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
		const [code, signal] = (await once(script, 'close')) as [number | null, NodeJS.Signals | null];
		run = { code, signal, output, seconds: Math.round((Date.now() - started) / 1000) };
		console.log(`npm run screenshots: ${run.seconds} s, exit ${signal ?? code}, ${readdirSync(outDir).length} pictures in ${outDir}`);
	});

	after(() => {
		// A run cut off by the timeout leaves its sandbox, n8n and chromium (their own process groups) to us.
		if (script?.pid !== undefined && script.exitCode === null && script.signalCode === null) {
			for (const pid of [...descendants(script.pid), script.pid]) {
				try {
					process.kill(pid, 'SIGKILL');
				} catch {
					// already gone
				}
			}
		}
		rmSync(outDir, { recursive: true, force: true });
	});

	it('exits 0', () => {
		assert.ok(run !== undefined, 'the script ran');
		assert.equal(run.code, 0, `npm run screenshots exited ${run.signal ?? run.code}; its last output:\n${run.output.slice(-6000)}`);
	});

	it(`writes one picture per example workflow (${EXAMPLE_PICTURES.length}) and the ${PANEL_PICTURES.length} panels into --out-dir, and nothing else`, () => {
		const written = readdirSync(outDir).sort();
		const missing = PROMISED.filter((name) => !written.includes(name));
		const unexpected = written.filter((name) => !PROMISED.includes(name));
		const problems = [
			...(missing.length > 0 ? [`pictures missing from --out-dir: ${missing.join(', ')}`] : []),
			...(unexpected.length > 0 ? [`files the script wrote that this test does not know (new pictures go into PANEL_PICTURES): ${unexpected.join(', ')}`] : []),
		];
		assert.deepEqual(problems, [], `${problems.join('\n')}${missing.length > 0 && run ? `\n(the script's last output:\n${run.output.slice(-3000)})` : ''}`);
	});

	it(`each picture is a complete PNG of ${WINDOW.width}x${WINDOW.height}`, () => {
		const bad = readdirSync(outDir)
			.filter((name) => PROMISED.includes(name))
			.map((name) => {
				const { width, height, problems } = readPng(path.join(outDir, name));
				if (width !== WINDOW.width || height !== WINDOW.height) problems.push(`${width}x${height}, not ${WINDOW.width}x${WINDOW.height}`);
				return problems.length > 0 ? `${name} (${statSync(path.join(outDir, name)).size} bytes): ${problems.join('; ')}` : undefined;
			})
			.filter((line) => line !== undefined);
		assert.ok(readdirSync(outDir).length > 0, 'the script wrote pictures to check');
		assert.deepEqual(bad, [], `pictures that are not a complete ${WINDOW.width}x${WINDOW.height} PNG:\n${bad.join('\n')}`);
	});

	it('leaves docs/images as it was (the pictures went to --out-dir only)', () => {
		const imagesAfter = contents(IMAGES_DIR);
		const changed = [...new Set([...imagesBefore.keys(), ...imagesAfter.keys()])].filter((name) => imagesBefore.get(name) !== imagesAfter.get(name)).sort();
		assert.deepEqual(changed, [], `docs/images changed while the script wrote to ${outDir}: ${changed.join(', ')}`);
	});

	it('takes every picture the README and docs/ show', () => {
		const shown = picturesTheDocsShow();
		assert.ok(shown.size > 0, 'the docs show pictures from docs/images');
		const notTaken = [...shown].filter(([name]) => !PROMISED.includes(name)).map(([name, docs]) => `${name} (shown by ${docs.join(', ')})`);
		assert.deepEqual(notTaken, [], `pictures the docs show that npm run screenshots does not take: ${notTaken.join(', ')}`);
	});
});
