import { inflateRawSync } from 'node:zlib';

/**
 * Reads one entry of a zip archive (an .xlsx) from its central directory. Enough for checking a 100,000-row
 * sheet quickly; exceljs's own reader takes several seconds for that.
 */
export function zipEntry(zip: Buffer, name: string): Buffer {
	let end = zip.length - 22;
	while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end -= 1;
	if (end < 0) throw new Error('not a zip archive: no end of central directory');
	const entries = zip.readUInt16LE(end + 10);
	let offset = zip.readUInt32LE(end + 16);
	for (let i = 0; i < entries; i++) {
		if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error(`bad central directory entry at ${offset}`);
		const method = zip.readUInt16LE(offset + 10);
		const compressedSize = zip.readUInt32LE(offset + 20);
		const nameLength = zip.readUInt16LE(offset + 28);
		const extraLength = zip.readUInt16LE(offset + 30);
		const commentLength = zip.readUInt16LE(offset + 32);
		const localHeader = zip.readUInt32LE(offset + 42);
		if (zip.toString('utf8', offset + 46, offset + 46 + nameLength) === name) {
			const dataStart = localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
			const data = zip.subarray(dataStart, dataStart + compressedSize);
			return method === 0 ? data : inflateRawSync(data);
		}
		offset += 46 + nameLength + extraLength + commentLength;
	}
	throw new Error(`no ${name} in the archive`);
}
