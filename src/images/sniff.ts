// Which image format a file is, from its first bytes (magic numbers) only: a file's name and the
// Content-Type its sender declared are the attacker's to choose, its bytes are what a decoder reads.
// Only the formats we accept are recognised; everything else (SVG, HEIC, TIFF, text…) is null.

/** Every format we can take; IMAGE_FORMATS (src/config.ts) may narrow the set accepted. */
export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'gif', 'avif'] as const

export type ImageFormat = (typeof IMAGE_FORMATS)[number]

const FORMAT_NAMES: Record<ImageFormat, string> = { jpeg: 'JPEG', png: 'PNG', webp: 'WebP', gif: 'GIF', avif: 'AVIF' }

/** "JPEG, PNG or WebP": the formats as a message names them. */
export function formatNames(formats: readonly ImageFormat[]): string {
  const names = formats.map((format) => FORMAT_NAMES[format])
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names.at(-1)!}`
}

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte)

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0))

/** AVIF is an ISO-BMFF file whose leading `ftyp` box names the `avif` (still) or `avis` (sequence) brand. */
function isAvif(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, ascii('ftyp'), 4)) return false
  const boxSize = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).readUInt32BE(0)
  const end = Math.min(boxSize, bytes.length)
  // The major brand (offset 8), then the compatible brands from offset 16, four bytes each.
  for (let at = 8; at + 4 <= end; at += at === 8 ? 8 : 4) {
    if (startsWith(bytes, ascii('avif'), at) || startsWith(bytes, ascii('avis'), at)) return true
  }
  return false
}

export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg'
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png'
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'gif'
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp'
  if (isAvif(bytes)) return 'avif'
  return null
}
