import { inflateSync } from 'node:zlib';

/** What a screenshot test checks: its size and that it is not one flat colour. */
export interface PngFacts {
  width: number;
  height: number;
  /** Distinct colours among up to ~20,000 sampled pixels (a blank page has one or two). */
  colours: number;
}

/** Reads a PNG's size and samples its pixels (8-bit RGB/RGBA, as Chromium writes screenshots). */
export function pngFacts(png: Buffer): PngFacts {
  if (png.subarray(1, 4).toString('latin1') !== 'PNG') throw new Error('not a PNG');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 4;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.subarray(offset + 4, offset + 8).toString('latin1');
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const colourType = data[9];
      if (data[8] !== 8 || (colourType !== 2 && colourType !== 6)) throw new Error('unsupported PNG');
      channels = colourType === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const bpp = channels;
  // Undo the scanline filters (PNG spec 9) to get the real pixels.
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const up = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[x - bpp]! : 0;
      const b = up[x]!;
      const c = x >= bpp ? up[x - bpp]! : 0;
      let v = line[x]!;
      if (filter === 1) v += a;
      else if (filter === 2) v += b;
      else if (filter === 3) v += (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[x] = v & 0xff;
    }
  }
  const colours = new Set<number>();
  const step = Math.max(1, Math.floor((width * height) / 20_000));
  for (let i = 0; i < width * height; i += step) {
    const p = i * channels;
    colours.add((pixels[p]! << 16) | (pixels[p + 1]! << 8) | pixels[p + 2]!);
  }
  return { width, height, colours: colours.size };
}
