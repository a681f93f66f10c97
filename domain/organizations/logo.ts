/**
 * D24: the workspace's logo, shown on its quotes' page and PDF. PNG or JPEG only (what a PDF
 * embeds without conversion), at most 256 KB, and what the bytes say they are: the declared
 * Content-Type must match the file's own signature, so nothing else is served as an image.
 */
export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];
export const LOGO_MAX_BYTES = 256 * 1024;
/** A logo larger than this on either side is refused: it is shown at most a few centimetres wide. */
export const LOGO_MAX_PIXELS = 2000;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);

/** The type the bytes' own signature names, or undefined for anything else. */
export function logoTypeOf(bytes: Uint8Array): LogoType | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return 'image/png';
  if (buffer.subarray(0, JPEG_SIGNATURE.length).equals(JPEG_SIGNATURE)) return 'image/jpeg';
  return undefined;
}

/** Why these bytes, sent as `declared`, are not a logo we keep; undefined when they may be. */
export function logoComplaint(declared: string, bytes: Uint8Array): string | undefined {
  if (bytes.byteLength === 0) return 'The logo is empty.';
  if (bytes.byteLength > LOGO_MAX_BYTES) return `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB.`;
  const actual = logoTypeOf(bytes);
  if (!actual) return 'The file is neither a PNG nor a JPEG image.';
  if (actual !== declared) return `The file is a ${actual === 'image/png' ? 'PNG' : 'JPEG'} image, but was sent as ${declared}.`;
  return undefined;
}

/** The image's width and height in pixels, from its header (PNG's IHDR, JPEG's start-of-frame); undefined if unreadable. */
export function logoDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = logoTypeOf(buffer);
  if (type === 'image/png') {
    if (buffer.length < 24 || buffer.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { width: buffer.readUInt32BE(16), height: buffer.readUInt32BE(20) };
  }
  if (type !== 'image/jpeg') return undefined;
  // Markers from after SOI: each FFxx with a big-endian length, until a start-of-frame (C0-CF but C4, C8, CC).
  let at = 2;
  while (at + 9 < buffer.length) {
    if (buffer[at] !== 0xff) return undefined;
    const marker = buffer[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = buffer.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: buffer.readUInt16BE(at + 5), width: buffer.readUInt16BE(at + 7) };
    }
    if (length < 2) return undefined;
    at += 2 + length;
  }
  return undefined;
}
