import { crc32 } from 'node:zlib';
import type { Writable } from 'node:stream';
import { once } from 'node:events';

/**
 * Small, valid files of each kind an order delivers, made from text lines: a WebVTT or SRT subtitle file, a DOCX
 * document (a stored zip with the three parts Word needs), a silent MP3 or WAV, and an MP4 container. Enough for a
 * player or an editor to open them; the bytes are deterministic, so a test can hash what was served.
 */

export interface Cue {
	startSec: number;
	endSec: number;
	text: string;
}

function clock(seconds: number, separator: '.' | ','): string {
	const ms = Math.round(seconds * 1000);
	const pad = (n: number, width = 2) => String(n).padStart(width, '0');
	return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

export function webVtt(cues: Cue[]): Buffer {
	const blocks = cues.map((cue, index) => `${index + 1}\n${clock(cue.startSec, '.')} --> ${clock(cue.endSec, '.')}\n${cue.text}`);
	return Buffer.from(`WEBVTT\n\n${blocks.join('\n\n')}\n`, 'utf8');
}

export function subRip(cues: Cue[]): Buffer {
	const blocks = cues.map((cue, index) => `${index + 1}\n${clock(cue.startSec, ',')} --> ${clock(cue.endSec, ',')}\n${cue.text}`);
	return Buffer.from(`${blocks.join('\n\n')}\n`, 'utf8');
}

/** A zip archive of stored (uncompressed) entries. */
function storedZip(entries: Array<{ name: string; data: Buffer }>): Buffer {
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const entry of entries) {
		const name = Buffer.from(entry.name, 'utf8');
		const crc = crc32(entry.data);
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4);
		local.writeUInt16LE(0x21, 12); // 1980-01-01: fixed, so the bytes do not depend on the day
		local.writeUInt32LE(crc, 14);
		local.writeUInt32LE(entry.data.length, 18);
		local.writeUInt32LE(entry.data.length, 22);
		local.writeUInt16LE(name.length, 26);
		const central = Buffer.alloc(46);
		central.writeUInt32LE(0x02014b50, 0);
		central.writeUInt16LE(20, 4);
		central.writeUInt16LE(20, 6);
		central.writeUInt16LE(0x21, 14);
		central.writeUInt32LE(crc, 16);
		central.writeUInt32LE(entry.data.length, 20);
		central.writeUInt32LE(entry.data.length, 24);
		central.writeUInt16LE(name.length, 28);
		central.writeUInt32LE(offset, 42);
		locals.push(local, name, entry.data);
		centrals.push(central, name);
		offset += local.length + name.length + entry.data.length;
	}
	const directory = Buffer.concat(centrals);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(entries.length, 8);
	end.writeUInt16LE(entries.length, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...locals, directory, end]);
}

function xmlText(text: string): string {
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Word document with one paragraph per line. */
export function docx(lines: string[]): Buffer {
	const paragraphs = lines.map((line) => `<w:p><w:r><w:t xml:space="preserve">${xmlText(line)}</w:t></w:r></w:p>`).join('');
	const part = (text: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${text}`, 'utf8');
	return storedZip([
		{
			name: '[Content_Types].xml',
			data: part(
				'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
			),
		},
		{
			name: '_rels/.rels',
			data: part(
				'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
			),
		},
		{
			name: 'word/document.xml',
			data: part(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraphs}</w:body></w:document>`),
		},
	]);
}

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, mono: 417-byte frames whose empty side information decodes as silence. */
const MP3_FRAME = (() => {
	const frame = Buffer.alloc(417);
	frame.set([0xff, 0xfb, 0x90, 0xc0], 0);
	return frame;
})();

/** About `seconds` of silent MP3 (38.28 frames a second). */
export function silentMp3(seconds: number): Buffer {
	return Buffer.concat(Array.from({ length: Math.max(1, Math.round(seconds * 38.28)) }, () => MP3_FRAME));
}

/** `seconds` of silent 8 kHz, 8-bit mono PCM in a RIFF/WAVE file. */
export function silentWav(seconds: number): Buffer {
	const samples = Math.max(1, Math.round(seconds * 8000));
	const header = Buffer.alloc(44);
	header.write('RIFF', 0, 'ascii');
	header.writeUInt32LE(36 + samples, 4);
	header.write('WAVEfmt ', 8, 'ascii');
	header.writeUInt32LE(16, 16);
	header.writeUInt16LE(1, 20); // PCM
	header.writeUInt16LE(1, 22); // mono
	header.writeUInt32LE(8000, 24);
	header.writeUInt32LE(8000, 28);
	header.writeUInt16LE(1, 32);
	header.writeUInt16LE(8, 34);
	header.write('data', 36, 'ascii');
	header.writeUInt32LE(samples, 40);
	// 8-bit PCM is unsigned: 128 is silence.
	return Buffer.concat([header, Buffer.alloc(samples, 128)]);
}

function box(type: string, ...payload: Buffer[]): Buffer {
	const body = Buffer.concat(payload);
	const head = Buffer.alloc(8);
	head.writeUInt32BE(8 + body.length, 0);
	head.write(type, 4, 'ascii');
	return Buffer.concat([head, body]);
}

/** The head of an MP4 file (ftyp, and a moov with the movie header) and the header of its mdat box. */
function mp4Head(durationSec: number, mediaBytes: number): Buffer {
	const ftyp = box('ftyp', Buffer.from('isom', 'ascii'), Buffer.from([0, 0, 2, 0]), Buffer.from('isommp41', 'ascii'));
	const mvhd = Buffer.alloc(100);
	mvhd.writeUInt32BE(1000, 12); // timescale: milliseconds
	mvhd.writeUInt32BE(Math.round(durationSec * 1000), 16);
	mvhd.writeUInt32BE(0x00010000, 20); // rate 1.0
	mvhd.writeUInt16BE(0x0100, 24); // volume 1.0
	// The identity matrix.
	mvhd.writeUInt32BE(0x00010000, 36);
	mvhd.writeUInt32BE(0x00010000, 52);
	mvhd.writeUInt32BE(0x40000000, 68);
	mvhd.writeUInt32BE(1, 96); // next track id
	const mdatHeader = Buffer.alloc(8);
	mdatHeader.writeUInt32BE(8 + mediaBytes, 0);
	mdatHeader.write('mdat', 4, 'ascii');
	return Buffer.concat([ftyp, box('moov', box('mvhd', mvhd)), mdatHeader]);
}

const SMALL_MP4_MEDIA_BYTES = 4096;

/** A short MP4: its header and a small media box. */
export function smallMp4(durationSec: number): Buffer {
	return Buffer.concat([mp4Head(durationSec, SMALL_MP4_MEDIA_BYTES), mediaBytes(0, SMALL_MP4_MEDIA_BYTES)]);
}

/** Media bytes from an offset: a repeating pattern, so a large file's bytes can be made again for any range. */
function mediaBytes(offset: number, length: number): Buffer {
	const chunk = Buffer.alloc(length);
	for (let i = 0; i < length; i++) chunk[i] = (offset + i) % 251;
	return chunk;
}

const LARGE_CHUNK_BYTES = 256 * 1024;
/** The media pattern repeats every 251 bytes: one chunk whose length is a multiple of it serves every position. */
const LARGE_CHUNK = mediaBytes(0, LARGE_CHUNK_BYTES - (LARGE_CHUNK_BYTES % 251));

/** Waits until the reader took what was written, or went away. */
async function drained(out: Writable): Promise<void> {
	await Promise.race([once(out, 'drain'), once(out, 'close')]);
}

/** An MP4 of exactly `totalBytes`, made as it is written: never more than one chunk in memory. */
export async function writeLargeMp4(out: Writable, totalBytes: number, durationSec: number): Promise<void> {
	const head = mp4Head(durationSec, 0);
	const media = totalBytes - head.length;
	if (media < 0) throw new RangeError(`a large file must be at least ${head.length} bytes`);
	head.writeUInt32BE(8 + media, head.length - 8);
	if (!out.write(head)) await drained(out);
	let left = media;
	while (left > 0) {
		if (out.destroyed) return;
		const piece = left >= LARGE_CHUNK.length ? LARGE_CHUNK : LARGE_CHUNK.subarray(0, left);
		left -= piece.length;
		if (!out.write(piece)) await drained(out);
	}
}
