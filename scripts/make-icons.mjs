// Draws the app's PNG icons from public/favicon.svg with sharp: the 180 px icon iOS shows on a
// home screen (apple-touch-icon.png, a full square: iOS rounds its corners itself) and the
// 192 and 512 px icons of the web app manifest. Run it again after changing the SVG, and commit
// what it writes:   node scripts/make-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const PUBLIC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public');
const svg = fs.readFileSync(path.join(PUBLIC, 'favicon.svg'), 'utf8');
const square = svg.replace(/<rect width="64" height="64" rx="\d+"/, '<rect width="64" height="64"');

const icons = [
  { file: 'apple-touch-icon.png', size: 180, source: square },
  { file: 'icon-192.png', size: 192, source: svg },
  { file: 'icon-512.png', size: 512, source: svg },
];
for (const { file, size, source } of icons) {
  await sharp(Buffer.from(source), { density: (72 * size) / 64 })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toFile(path.join(PUBLIC, file));
  console.log(`public/${file}: ${size}×${size}`);
}
