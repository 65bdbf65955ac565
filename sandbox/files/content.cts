import type { Writable } from 'node:stream';
import { generateSegments } from '../domain/segments.cts';
import type { OrderDoc, OrderRecord } from '../types.cts';
import { type Cue, docx, silentMp3, silentWav, smallMp4, subRip, webVtt, writeLargeMp4 } from './formats.cts';

/** What the storage host serves for one order document: its type, length, and how to write its bytes. */
export interface StoredFile {
	mimeType: string;
	size: number;
	write(out: Writable): Promise<void>;
}

const MIME_TYPES: Readonly<Record<string, string>> = {
	vtt: 'text/vtt',
	srt: 'application/x-subrip',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	txt: 'text/plain',
	mp3: 'audio/mpeg',
	wav: 'audio/wav',
	m4a: 'audio/mp4',
	mp4: 'video/mp4',
	mov: 'video/quicktime',
	mkv: 'video/x-matroska',
	webm: 'video/webm',
};

/** At most this many cues: the subtitle files stay small whatever the order's length. */
const MAX_CUES = 40;
const SECONDS_PER_CUE = 4;

function extensionOf(name: string): string {
	const dot = name.lastIndexOf('.');
	return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

/** The order's segments as cues, in the language the document is in. */
function cuesOf(seed: number, order: OrderRecord, doc: OrderDoc): Cue[] {
	const inSource = doc.type.toLowerCase().startsWith('source') || order.type === 'cc';
	const count = Math.min(MAX_CUES, Math.max(1, order.segmentCount));
	return [...generateSegments(seed, order.id, count)].map((segment, index) => ({
		startSec: index * SECONDS_PER_CUE,
		endSec: index * SECONDS_PER_CUE + SECONDS_PER_CUE - 0.5,
		text: inSource ? segment.source : segment.target,
	}));
}

function bytesOf(seed: number, order: OrderRecord, doc: OrderDoc, extension: string): Buffer {
	switch (extension) {
		case 'vtt':
			return webVtt(cuesOf(seed, order, doc));
		case 'srt':
			return subRip(cuesOf(seed, order, doc));
		case 'docx':
			return docx(cuesOf(seed, order, doc).map((cue) => cue.text));
		case 'mp3':
		case 'm4a':
			return silentMp3(1);
		case 'wav':
			return silentWav(1);
		case 'mp4':
		case 'mov':
		case 'mkv':
		case 'webm':
		case 'avi':
			return smallMp4(doc.duration ?? 2);
		default:
			return Buffer.from(cuesOf(seed, order, doc).map((cue) => cue.text).join('\n') + '\n', 'utf8');
	}
}

/** The file behind a document; `largeBytes` makes it a video of that size, generated as it is sent. */
export function storedFile(seed: number, order: OrderRecord, doc: OrderDoc, largeBytes?: number): StoredFile {
	const extension = extensionOf(doc.name);
	const mimeType = MIME_TYPES[extension] ?? 'application/octet-stream';
	if (largeBytes !== undefined) {
		return { mimeType: 'video/mp4', size: largeBytes, write: (out) => writeLargeMp4(out, largeBytes, doc.duration ?? 60) };
	}
	const bytes = bytesOf(seed, order, doc, extension);
	return {
		mimeType,
		size: bytes.length,
		write: async (out) => {
			out.write(bytes);
		},
	};
}
