import { once } from 'node:events';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { hashString, mix32 } from '../core/rng.cts';

// Loaded with a plain CommonJS require: under `tsx` on Node 20 an `import` of exceljs from a .cts file goes
// through the ESM loader's CommonJS shim, which fails inside exceljs's dependencies (ERR_VM_MODULE_LINK_FAILURE).
const ExcelJS = createRequire(__filename)('exceljs') as typeof import('exceljs');

/**
 * Segment data for the XLSX export. Rows are generated on the fly from (seed, order id, row index) rather than
 * stored, so a 100,000-segment order costs nothing until exported, and the export streams.
 */
export interface Segment {
	number: number;
	timecode: string;
	speaker: string;
	source: string;
	target: string;
}

const WORDS = ['we', 'build', 'tools', 'for', 'every', 'team', 'today', 'the', 'new', 'release', 'brings', 'faster', 'search', 'and', 'clear', 'reports', 'your', 'data', 'stays', 'safe', 'with', 'us', 'let', 'me', 'show', 'how', 'it', 'works', 'in', 'practice'] as const;
const TARGET_WORDS = ['nous', 'wir', 'nosotros', 'noi', 'voce', 'kore', 'uri', 'women', 'biz', 'nahnu', 'wij', 'my', 'outil', 'werkzeug', 'equipo', 'nuovo', 'dados', 'shin', 'saeroun', 'xin', 'yeni', 'jadid', 'nieuw', 'nowy'] as const;
const FRAMES_PER_SECOND = 25;
const SECONDS_PER_SEGMENT = 4;

export function* generateSegments(seed: number, orderId: string, count: number): Generator<Segment> {
	const orderHash = hashString(orderId, seed);
	for (let i = 0; i < count; i++) {
		const h = mix32(orderHash, i);
		const startFrames = (i * SECONDS_PER_SEGMENT + (h % 2000) / 1000) * FRAMES_PER_SECOND;
		const wordCount = 4 + ((h >>> 11) % 7);
		const source: string[] = [];
		const target: string[] = [];
		for (let w = 0; w < wordCount; w++) {
			const wh = mix32(h, w);
			source.push(WORDS[wh % WORDS.length]);
			target.push(TARGET_WORDS[(wh >>> 8) % TARGET_WORDS.length]);
		}
		yield {
			number: i + 1,
			timecode: timecode(Math.floor(startFrames)),
			speaker: `Speaker ${1 + ((h >>> 20) % 3)}`,
			source: capitalize(source.join(' ')) + '.',
			target: capitalize(target.join(' ')) + '.',
		};
	}
}

function timecode(totalFrames: number): string {
	const frames = totalFrames % FRAMES_PER_SECOND;
	const totalSeconds = Math.floor(totalFrames / FRAMES_PER_SECOND);
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}:${pad(frames)}`;
}

function capitalize(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

export const XLSX_HEADERS = ['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES'] as const;
const ROWS_BETWEEN_DRAIN_CHECKS = 500;

export interface SegmentSheet {
	name: string;
	targetLanguage: string;
	segments: Iterable<Segment>;
}

/** Streams a one-sheet workbook (the order export). */
export async function writeSegmentsXlsx(out: Writable, targetLanguage: string, segments: Iterable<Segment>): Promise<void> {
	await writeSegmentSheetsXlsx(out, [{ name: 'Segments', targetLanguage, segments }]);
}

/**
 * Streams a workbook with exceljs's streaming writer, one sheet after another (each with the export's columns);
 * waits when the client reads slower than rows are made.
 */
export async function writeSegmentSheetsXlsx(out: Writable, sheets: Iterable<SegmentSheet>): Promise<void> {
	const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
	let rows = 0;
	for (const { name, targetLanguage, segments } of sheets) {
		const sheet = workbook.addWorksheet(name);
		sheet.addRow([...XLSX_HEADERS, targetLanguage]).commit();
		for (const segment of segments) {
			sheet.addRow([segment.number, segment.timecode, segment.speaker, segment.source, segment.target]).commit();
			rows += 1;
			if (rows % ROWS_BETWEEN_DRAIN_CHECKS === 0) {
				if (out.destroyed) throw new Error('the client went away during the export');
				if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), once(out, 'close')]);
			}
		}
		sheet.commit();
	}
	await workbook.commit();
}

/** Excel's sheet-name rules: at most 31 characters, none of : \\ / ? * [ ], no apostrophe at either end; unique ignoring case. */
export const MAX_SHEET_NAME_LENGTH = 31;

/** Characters Excel refuses become spaces; runs of spaces collapse; apostrophes and spaces leave the ends. */
function sheetText(text: string): string {
	return text.replace(/[:\\/?*[\]]/g, ' ').replace(/\s+/g, ' ').replace(/^[\s']+|[\s']+$/g, '');
}

/** The first `room` characters, cut back to a word end when that loses little, without a dangling separator. */
function shorten(text: string, room: number): string {
	if (text.length <= room) return text;
	let cut = text.slice(0, room);
	const lastSpace = cut.lastIndexOf(' ');
	if (text[room] !== ' ' && lastSpace >= room / 2) cut = cut.slice(0, lastSpace);
	return cut.replace(/[\s\-_.,;']+$/, '');
}

/**
 * `{OrderName} - {lang}` within Excel's 31 characters: the language is always kept, the order name is shortened
 * (at a word end where possible), and a repeat gets a counter before the language: `Season Trailer (2) - de`.
 */
export function uniqueSheetName(orderName: string, language: string, taken: Set<string>): string {
	const suffix = ` - ${sheetText(language)}`;
	const base = sheetText(orderName);
	for (let n = 1; ; n++) {
		const counter = n === 1 ? '' : ` (${n})`;
		const head = shorten(base, MAX_SHEET_NAME_LENGTH - suffix.length - counter.length) || 'Order';
		const name = `${head}${counter}${suffix}`;
		if (!taken.has(name.toLowerCase())) {
			taken.add(name.toLowerCase());
			return name;
		}
	}
}
