// The metadata blocks of an image file (text, EXIF, XMP, ICC profiles, comments, unknown extras),
// found by walking its container the way its decoder will: chunk by chunk, segment by segment,
// block by block, box by box, reading lengths and never pixels. Linear in the file's size and
// allocation-free: each block is a view of the file's bytes. A block a decoder inflates (PNG's
// zTXt, compressed iTXt and iCCP) comes as its deflated bytes, for the caller to measure.
// Where the structure breaks off the walk stops: the decoder stops there too, or fails.
import type { ImageFormat } from './sniff.ts'

export type MetadataBlock = { size: number } | { deflated: Buffer }

const latin1 = (bytes: Buffer, from: number, to: number) => bytes.toString('latin1', from, to)
const IEND = 0x49454e44

/** PNG ancillary chunks that describe the pixels, of a size fixed by the standard, and APNG's frames (never decoded: first frame only). */
const PNG_NOT_METADATA = new Set([
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'sBIT',
  'bKGD',
  'pHYs',
  'cICP',
  'mDCV',
  'cLLI',
  'acTL',
  'fcTL',
  'fdAT',
])

function* pngBlocks(bytes: Buffer): Generator<MetadataBlock> {
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(at)
    const typeAt = at + 4
    at += 12 + length
    // Critical chunks (IHDR, PLTE, IDAT, IEND: an upper-case first letter, bit 5 clear) are the
    // image itself; told apart without making a string, as a file may hold 400 000 empty ones.
    if ((bytes[typeAt]! & 0x20) === 0) {
      if (bytes.readUInt32BE(typeAt) === IEND) return
      continue
    }
    const type = latin1(bytes, typeAt, typeAt + 4)
    if (PNG_NOT_METADATA.has(type)) continue
    const data = bytes.subarray(typeAt + 4, Math.min(bytes.length, typeAt + 4 + length))
    // zTXt and iCCP: a name, a NUL, the compression method, then the deflated text or profile.
    const nameEnd = data.indexOf(0)
    if ((type === 'zTXt' || type === 'iCCP') && nameEnd >= 0) yield { deflated: data.subarray(nameEnd + 2) }
    else if (type === 'iTXt' && nameEnd >= 0 && data[nameEnd + 1] === 1) {
      // iTXt: keyword, NUL, compressed flag, method, language tag, NUL, translated keyword, NUL, text.
      const languageEnd = data.indexOf(0, nameEnd + 3)
      const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1)
      yield translatedEnd < 0 ? { size: data.length } : { deflated: data.subarray(translatedEnd + 1) }
    } else yield { size: data.length }
  }
}

function* jpegBlocks(bytes: Buffer): Generator<MetadataBlock> {
  // In entropy-coded data (after a start of scan), the next marker is 0xFF followed by anything but
  // 0x00 (a stuffed byte), a restart marker or another 0xFF; searched in the file as one string of
  // one byte per character, natively and in linear time.
  // eslint-disable-next-line no-control-regex -- bytes, not text: 0x00 after 0xFF is a stuffed byte
  const marker = /\xff+[^\x00\xd0-\xd7\xff]/g
  let text: string | undefined
  let inScan = false
  for (let at = 2; at + 4 <= bytes.length;) {
    if (inScan || bytes[at] !== 0xff || bytes[at + 1] === 0x00) {
      text ??= latin1(bytes, 0, bytes.length)
      marker.lastIndex = at
      const found = marker.exec(text)
      if (found === null) return
      at = found.index + found[0].length - 2
      inScan = false
      continue
    }
    const code = bytes[at + 1]!
    if (code === 0xff) {
      at += 1 // fill byte
      continue
    }
    if (code === 0xd9) return // end of image
    if ((code >= 0xd0 && code <= 0xd7) || code === 0x01) {
      at += 2 // restart markers and TEM stand alone
      continue
    }
    const length = bytes.readUInt16BE(at + 2)
    // APP0 to APP15 (JFIF, EXIF, XMP, ICC, Photoshop…) and COM.
    if ((code >= 0xe0 && code <= 0xef) || code === 0xfe) yield { size: Math.max(0, length - 2) }
    at += 2 + length
    // Entropy-coded data follows a start of scan; a progressive file has several scans, with segments between them.
    if (code === 0xda) inScan = true
  }
}

/** WebP chunks that are the image; everything else (ICCP, EXIF, XMP, unknown) is metadata. */
const WEBP_IMAGE = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF'])

function* webpBlocks(bytes: Buffer): Generator<MetadataBlock> {
  const end = Math.min(bytes.length, 8 + bytes.readUInt32LE(4))
  for (let at = 12; at + 8 <= end;) {
    const type = latin1(bytes, at, at + 4)
    const size = bytes.readUInt32LE(at + 4)
    if (!WEBP_IMAGE.has(type)) yield { size }
    at += 8 + size + (size & 1)
  }
}

/** Past a run of GIF sub-blocks (a length byte, that many bytes; a zero length ends the run). */
function skipSubBlocks(bytes: Buffer, at: number): number {
  while (at < bytes.length) {
    const length = bytes[at]!
    at += 1 + length
    if (length === 0) break
  }
  return at
}

const colourTableSize = (flags: number) => (flags & 0x80 ? 3 * (1 << ((flags & 0x07) + 1)) : 0)

function* gifBlocks(bytes: Buffer): Generator<MetadataBlock> {
  // Header (6), logical screen descriptor (7), global colour table.
  for (let at = 13 + colourTableSize(bytes[10] ?? 0); at < bytes.length;) {
    const introducer = bytes[at]
    if (introducer === 0x2c) {
      // An image: descriptor (10), local colour table, LZW code size (1), data sub-blocks.
      at += 10 + colourTableSize(bytes[at + 9] ?? 0) + 1
      at = skipSubBlocks(bytes, at)
    } else if (introducer === 0x21) {
      // An extension: its label, then sub-blocks. Graphic control (0xF9) is a few bytes of frame timing;
      // comments, application (XMP, ICC, loop count) and plain-text extensions are metadata.
      const label = bytes[at + 1]
      const start = at + 2
      at = skipSubBlocks(bytes, start)
      if (label !== 0xf9) yield { size: at - start }
    } else return // the trailer (0x3B), or not GIF any more: decoders stop here
  }
}

interface Box {
  type: string
  start: number
  end: number
}

/** ISO-BMFF boxes between `start` and `end`: each its type and where its payload lies. */
function* boxes(bytes: Buffer, start: number, end: number): Generator<Box> {
  for (let at = start; at + 8 <= end;) {
    let size = bytes.readUInt32BE(at)
    let header = 8
    if (size === 1) {
      if (at + 16 > end) return
      size = Number(bytes.readBigUInt64BE(at + 8))
      header = 16
    } else if (size === 0) size = end - at
    if (size < header) return
    yield { type: latin1(bytes, at + 4, at + 8), start: at + header, end: Math.min(end, at + size) }
    at += size
  }
}

/** An unsigned integer of 0, 2, 4 or 8 bytes (as ISO-BMFF's iloc sizes them); null past `end`. */
function readSized(bytes: Buffer, at: number, size: number, end: number): number | null {
  if (at + size > end) return null
  if (size === 0) return 0
  if (size === 2) return bytes.readUInt16BE(at)
  if (size === 4) return bytes.readUInt32BE(at)
  if (size === 8) return Number(bytes.readBigUInt64BE(at))
  return null
}

/** Item types of a `meta` box's `iinf`: item id → four-character type. */
function itemTypes(bytes: Buffer, iinf: Box): Map<number, string> {
  const types = new Map<number, string>()
  const version = bytes[iinf.start]
  const first = iinf.start + 4 + (version === 0 ? 2 : 4)
  for (const infe of boxes(bytes, first, iinf.end)) {
    const infeVersion = bytes[infe.start]!
    if (infe.type !== 'infe' || infeVersion < 2) continue
    const idSize = infeVersion === 2 ? 2 : 4
    const id = readSized(bytes, infe.start + 4, idSize, infe.end)
    const typeAt = infe.start + 4 + idSize + 2
    if (id !== null && typeAt + 4 <= infe.end) types.set(id, latin1(bytes, typeAt, typeAt + 4))
  }
  return types
}

/** The bytes each item of a `meta` box's `iloc` spans, all its extents added (a length of 0 means "to the end": the whole file is counted). */
function itemLengths(bytes: Buffer, iloc: Box): Map<number, number> {
  const lengths = new Map<number, number>()
  const { start, end } = iloc
  const version = bytes[start]!
  let at = start + 4
  if (at + 2 > end) return lengths
  const offsetSize = bytes[at]! >> 4
  const lengthSize = bytes[at]! & 0x0f
  const baseOffsetSize = bytes[at + 1]! >> 4
  const indexSize = version === 1 || version === 2 ? bytes[at + 1]! & 0x0f : 0
  at += 2
  const wide = version === 2 ? 4 : 2
  const count = readSized(bytes, at, wide, end)
  if (count === null) return lengths
  at += wide
  for (let item = 0; item < count; item++) {
    const id = readSized(bytes, at, wide, end)
    at += wide + (version === 1 || version === 2 ? 2 : 0) + 2 + baseOffsetSize
    const extents = readSized(bytes, at, 2, end)
    if (id === null || extents === null) return lengths
    at += 2
    let total = 0
    for (let extent = 0; extent < extents; extent++) {
      at += indexSize + offsetSize
      const length = readSized(bytes, at, lengthSize, end)
      if (length === null) return lengths
      at += lengthSize
      total += length === 0 ? bytes.length : length
    }
    lengths.set(id, (lengths.get(id) ?? 0) + total)
  }
  return lengths
}

/** HEIF item types that carry metadata about the image (EXIF, XMP and other MIME content, URI-typed data). */
const AVIF_METADATA_ITEMS = new Set(['Exif', 'mime', 'uri '])

function* avifBlocks(bytes: Buffer): Generator<MetadataBlock> {
  for (const top of boxes(bytes, 0, bytes.length)) {
    if (top.type !== 'meta') continue
    const children = [...boxes(bytes, top.start + 4, top.end)]
    const iinf = children.find((box) => box.type === 'iinf')
    const iloc = children.find((box) => box.type === 'iloc')
    if (iinf && iloc) {
      const types = itemTypes(bytes, iinf)
      for (const [id, length] of itemLengths(bytes, iloc))
        if (AVIF_METADATA_ITEMS.has(types.get(id) ?? '')) yield { size: length }
    }
    // ICC profiles are properties (colr boxes of type prof or rICC) in iprp/ipco.
    for (const iprp of children.filter((box) => box.type === 'iprp'))
      for (const ipco of boxes(bytes, iprp.start, iprp.end))
        if (ipco.type === 'ipco')
          for (const property of boxes(bytes, ipco.start, ipco.end))
            if (property.type === 'colr' && latin1(bytes, property.start, property.start + 4) !== 'nclx')
              yield { size: property.end - property.start }
  }
}

const WALKERS: Record<ImageFormat, (bytes: Buffer) => Generator<MetadataBlock>> = {
  png: pngBlocks,
  jpeg: jpegBlocks,
  webp: webpBlocks,
  gif: gifBlocks,
  avif: avifBlocks,
}

/** Every metadata block of `bytes`, a file already sniffed as `format`, in file order. */
export function metadataBlocks(bytes: Buffer, format: ImageFormat): Generator<MetadataBlock> {
  return WALKERS[format](bytes)
}
