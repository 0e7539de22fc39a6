// Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip, level 9) beside each
// compressible file of a built app, for the server to send as they are
// (`server/src/spa.rs`) instead of compressing the wasm bundle on every request.
//
// Usage: node scripts/precompress.mjs [DIR]; DIR defaults to $TRUNK_STAGING_DIR (Trunk's
// post-build hook, see Trunk.toml), then `dist`. Node's own zlib does both encodings, so
// the build needs nothing beyond the Node it already has.
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, extname } from "node:path";

const COMPRESSIBLE = new Set([".wasm", ".js", ".css", ".html", ".svg", ".json", ".map", ".txt"]);
// Below this a compressed copy saves less than a packet.
const MIN_BYTES = 1024;

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile() && COMPRESSIBLE.has(extname(e.name))) yield p;
  }
}

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? "dist";
if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
  console.error(`precompress: ${dir} is not a directory`);
  process.exit(1);
}
const started = Date.now();
let count = 0;
for (const path of files(dir)) {
  const raw = readFileSync(path);
  if (raw.length < MIN_BYTES) continue;
  const br = brotliCompressSync(raw, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
    },
  });
  const gz = gzipSync(raw, { level: 9 });
  // A variant no smaller than the file is left out; the server then sends the file.
  if (br.length < raw.length) writeFileSync(`${path}.br`, br);
  if (gz.length < raw.length) writeFileSync(`${path}.gz`, gz);
  count += 1;
}
console.log(`precompress: ${count} files in ${dir} (${Date.now() - started} ms)`);
