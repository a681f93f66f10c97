import { crc32, deflateSync, inflateSync } from 'node:zlib';

/** A decoded screenshot: RGBA pixels, row after row. */
export interface Pixels {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/**
 * Decodes the PNGs Chromium writes (8 bits per channel, RGB or RGBA, not interlaced): enough to
 * look at a screenshot's pixels in a test without an image library.
 */
export function decodePng(png: Buffer): Pixels {
  if (png.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a') throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.subarray(offset + 4, offset + 8).toString('latin1');
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      if (depth !== 8 || interlace !== 0 || (colour !== 2 && colour !== 6)) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colour}, interlace ${interlace}`);
      channels = colour === 6 ? 4 : 3;
    } else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const out = new Uint8Array(width * height * 4);
  let previous = new Uint8Array(stride);
  for (let y = 0; y < height; y += 1) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = new Uint8Array(stride);
    for (let x = 0; x < stride; x += 1) {
      const a = x >= channels ? row[x - channels]! : 0;
      const b = previous[x]!;
      const c = x >= channels ? previous[x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      row[x] = (line[x]! + predictor) & 0xff;
    }
    for (let x = 0; x < width; x += 1) {
      const to = (y * width + x) * 4;
      out[to] = row[x * channels]!;
      out[to + 1] = row[x * channels + 1]!;
      out[to + 2] = row[x * channels + 2]!;
      out[to + 3] = channels === 4 ? row[x * channels + 3]! : 255;
    }
    previous = row;
  }
  return { width, height, rgba: out };
}

/**
 * How much of a region is drawn on: the share of its pixels that differ from the region's most
 * common colour (its background). A blank region is 0; text and controls make it grow.
 */
export function inkShare(pixels: Pixels, region: { x: number; y: number; width: number; height: number }): number {
  const x0 = Math.max(0, Math.floor(region.x));
  const y0 = Math.max(0, Math.floor(region.y));
  const x1 = Math.min(pixels.width, Math.ceil(region.x + region.width));
  const y1 = Math.min(pixels.height, Math.ceil(region.y + region.height));
  const counts = new Map<number, number>();
  const colourAt = (x: number, y: number) => {
    const i = (y * pixels.width + x) * 4;
    return (pixels.rgba[i]! << 16) | (pixels.rgba[i + 1]! << 8) | pixels.rgba[i + 2]!;
  };
  for (let y = y0; y < y1; y += 1) for (let x = x0; x < x1; x += 1) counts.set(colourAt(x, y), (counts.get(colourAt(x, y)) ?? 0) + 1);
  const total = (x1 - x0) * (y1 - y0);
  if (total <= 0) return 0;
  const background = Math.max(...counts.values());
  return (total - background) / total;
}

/** A PNG of one colour (8-bit RGB, not interlaced), made here so a test can upload a real image. */
export function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3]!)]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
