#!/usr/bin/env node
// Object-storage transfer benchmark: streams one upload and one download of SIZE bytes through the
// built API server (apps/api/dist, SQLite, temp DATA_DIR; bench/lib/server-process.mjs) on loopback, once
// per storage backend: the local disk, and S3 (a real s3rver process started by test-kit's
// startS3Server, its data on the same disk). Compares the throughput with `cp` of the same file on the
// same disk and samples the server's VmRSS while transferring; reports its VmHWM per backend.
//
//   node bench/files/transfer.mjs [size] [--backends local,s3]
//     size in bytes or with K/M/G suffix (binary), default 2G; backends default: both
//
// Targets: server RSS growth < 100 MB on both backends; on the local disk also throughput >= 0.5 of cp
// in both directions (on S3 every byte also goes through s3rver, which writes a multipart upload's
// parts and then the object: its throughput is reported, not a target). Every operation is timed until
// it returns and until `sync` has its bytes on the disk; the ratio that counts is the on-disk one,
// because `cp` of a file that fits in the page cache is only a memory copy.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { devLogin, memoryOf, repoRoot, startServerProcess } from '../lib/server-process.mjs';

const MiB = 1024 ** 2;
const serverEntry = join(repoRoot, 'apps', 'api', 'dist', 'index.js');
const testKitEntry = join(repoRoot, 'packages', 'test-kit', 'dist', 'index.js');
const BACKENDS = ['local', 's3'];

function parseArgs(argv) {
  const options = { size: undefined, backends: BACKENDS };
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at];
    if (arg === '--backends' || arg.startsWith('--backends=')) {
      const list = arg.includes('=') ? arg.slice('--backends='.length) : argv[++at];
      options.backends = (list ?? '').split(',').filter(Boolean);
      const unknown = options.backends.filter((name) => !BACKENDS.includes(name));
      if (!options.backends.length || unknown.length)
        throw new Error(`--backends takes a comma-separated list of ${BACKENDS.join(', ')}`);
    } else if (options.size === undefined) options.size = arg;
    else throw new Error(`unexpected argument "${arg}"`);
  }
  return { size: parseSize(options.size), backends: options.backends };
}

function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)i?b?$/i.exec(text ?? '2G');
  if (!match) throw new Error(`cannot read size "${text}" (examples: 2G, 512M, 1048576)`);
  const scale = { '': 1, k: 1024, m: MiB, g: 1024 ** 3 }[match[2].toLowerCase()];
  return Math.round(Number(match[1]) * scale);
}

async function writeSourceFile(path, size) {
  const block = randomBytes(64 * MiB); // incompressible, generated once and repeated
  const out = createWriteStream(path);
  for (let left = size; left > 0; left -= block.length) {
    if (!out.write(left >= block.length ? block : block.subarray(0, left)))
      await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r, j) => out.end((error) => (error ? j(error) : r())));
}

/** VmRSS and VmHWM of a process in bytes. */
function rssOf(pid) {
  const { rssMiB, peakMiB } = memoryOf(pid);
  return { rss: rssMiB * MiB, hwm: peakMiB * MiB };
}

const secondsSince = (start) => Number(process.hrtime.bigint() - start) / 1e9;

/**
 * Times `work` until it returns (`cached`: written bytes may still sit in the page cache) and until
 * `sync` has them on the disk (`durable`), starting with no dirty pages left over. With a pid, samples
 * that process's VmRSS every 50 ms meanwhile.
 */
async function measure(work, pid) {
  spawnSync('sync');
  const before = pid ? rssOf(pid).rss : 0;
  let peak = before;
  const timer = pid ? setInterval(() => (peak = Math.max(peak, rssOf(pid).rss)), 50) : null;
  const start = process.hrtime.bigint();
  try {
    const result = await work();
    const cached = secondsSince(start);
    spawnSync('sync');
    return { result, cached, durable: secondsSince(start), before, peak, hwm: pid ? rssOf(pid).hwm : 0 };
  } finally {
    if (timer) clearInterval(timer);
  }
}

function http(baseUrl, method, path, { headers = {}, body, sink } = {}) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolveRes, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, async (res) => {
      try {
        if (sink && res.statusCode === 200) {
          await pipeline(res, sink);
          return resolveRes({ status: res.statusCode, headers: res.headers, text: '' });
        }
        const chunks = [];
        for await (const chunk of res) chunks.push(chunk);
        resolveRes({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
    if (body && typeof body.pipe === 'function') pipeline(body, req).catch(reject);
    else req.end(body);
  });
}

async function signIn(url) {
  const cookie = await devLogin(url);
  const created = await http(url, 'POST', '/svc/api/projects', {
    headers: { cookie, origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (created.status !== 201) throw new Error(`project creation failed: ${created.status} ${created.text}`);
  return { cookie, projectId: JSON.parse(created.text).id };
}

const mb = (bytes) => `${(bytes / MiB).toFixed(1)} MiB`;
const rate = (bytes, seconds) => `${(bytes / MiB / seconds).toFixed(0)} MiB/s`;

/** The object storage a server stores in: nothing to start for the local disk, an s3rver for S3. */
async function startStorage(backend) {
  if (backend === 'local') return { env: {}, close: async () => undefined };
  if (!existsSync(testKitEntry))
    throw new Error(`${testKitEntry} is missing: build first (pnpm turbo run build --filter @svc/api...)`);
  const { startS3Server } = createRequire(import.meta.url)(testKitEntry);
  const s3 = await startS3Server({ bucket: 'svc-bench' });
  return { env: s3.env('bench/'), close: () => s3.close() };
}

/** One upload, one download to a file and one download the client discards, through a fresh server. */
async function transferThrough(backend, size, source, work) {
  const storage = await startStorage(backend);
  let server;
  try {
    server = await startServerProcess({
      provider: 'sqlite',
      env: { ...storage.env, STORAGE_MAX_UPLOAD_BYTES: String(Math.max(size, 2 * 1024 ** 3)) },
    });
    const { cookie, projectId } = await signIn(server.url);
    const objectPath = `/svc/api/projects/${projectId}/storage/bench/object.bin`;

    const upload = await measure(
      () =>
        http(server.url, 'PUT', objectPath, {
          headers: {
            cookie,
            origin: server.url,
            'content-type': 'application/octet-stream',
            'content-length': String(size),
          },
          body: createReadStream(source, { highWaterMark: MiB }),
        }),
      server.pid,
    );
    if (upload.result.status !== 201) throw new Error(`upload failed: ${upload.result.status} ${upload.result.text}`);

    const downloaded = join(work, 'downloaded.bin');
    const download = await measure(
      () =>
        http(server.url, 'GET', objectPath, {
          headers: { cookie },
          sink: createWriteStream(downloaded, { highWaterMark: MiB }),
        }),
      server.pid,
    );
    if (download.result.status !== 200 || statSync(downloaded).size !== size)
      throw new Error(`download failed: ${download.result.status}`);
    rmSync(downloaded);

    // The same download with the client throwing the bytes away: what the server sends, without the
    // client's own disk writes (which cp does in the kernel, and a user-space writer pays for).
    const discard = () => new Writable({ highWaterMark: MiB, write: (_chunk, _encoding, done) => done() });
    const served = await measure(
      () => http(server.url, 'GET', objectPath, { headers: { cookie }, sink: discard() }),
      server.pid,
    );
    return { upload, download, served };
  } finally {
    await server?.stop();
    await storage.close();
  }
}

function report(size, cp, results) {
  const row = (m) => ({
    cached_seconds: m.cached,
    durable_seconds: m.durable,
    durable_throughput: rate(size, m.durable),
    ratio_to_cp_cached: cp.cached / m.cached,
    ratio_to_cp_durable: cp.durable / m.durable,
    rss_before: m.before,
    rss_peak: m.peak,
    rss_growth: m.peak - m.before,
  });
  const result = {
    size_bytes: size,
    cp: { cached_seconds: cp.cached, durable_seconds: cp.durable, durable_throughput: rate(size, cp.durable) },
  };
  console.log('\n                     until returned          until on disk (sync)');
  console.log(
    `cp                   ${cp.cached.toFixed(2).padStart(6)} s                ${cp.durable.toFixed(2).padStart(6)} s               ${result.cp.durable_throughput}`,
  );
  for (const [backend, { upload, download, served }] of Object.entries(results)) {
    const rows = { upload: row(upload), download: row(download), download_discarded_by_client: row(served) };
    result[backend] = { ...rows, server_vm_hwm: served.hwm };
    for (const [name, r] of Object.entries(rows)) {
      const memoryOk = r.rss_growth < 100 * 1e6;
      const verdict = name.startsWith('download_')
        ? '(not a target)'
        : memoryOk && (backend !== 'local' || r.ratio_to_cp_durable >= 0.5)
          ? 'ok'
          : 'BELOW TARGET';
      const label =
        name === 'download_discarded_by_client'
          ? `${backend} download, client discarding\n                    `
          : `${backend} ${name}`.padEnd(19);
      console.log(
        `${label}  ${r.cached_seconds.toFixed(2).padStart(6)} s (${r.ratio_to_cp_cached.toFixed(2)} of cp)  ${r.durable_seconds.toFixed(2).padStart(6)} s (${r.ratio_to_cp_durable.toFixed(2)} of cp)  ${r.durable_throughput}` +
          `  server RSS ${mb(r.rss_before)} -> peak ${mb(r.rss_peak)} (+${mb(r.rss_growth)})  ${verdict}`,
      );
    }
    console.log(`${backend}: server VmHWM (peak since start) ${mb(served.hwm)}`);
  }
  console.log(JSON.stringify(result));
}

async function main() {
  const { size, backends } = parseArgs(process.argv.slice(2));
  if (!existsSync(serverEntry))
    throw new Error(`${serverEntry} is missing: build first (pnpm turbo run build --filter @svc/api...)`);
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-files-'));
  const source = join(work, 'source.bin');
  try {
    console.log(`writing a ${mb(size)} source file in ${work}`);
    await writeSourceFile(source, size);

    // cp on this kind of machine swings between disk speed and page-cache speed from one run to the
    // next, so the baseline is the median of three runs (all three are printed).
    const cpRuns = [];
    for (let run = 0; run < 3; run++) {
      cpRuns.push(
        await measure(async () => {
          const copy = spawnSync('cp', [source, join(work, 'cp-copy.bin')]);
          if (copy.status !== 0) throw new Error(`cp failed: ${copy.stderr}`);
        }),
      );
      rmSync(join(work, 'cp-copy.bin'));
    }
    const cp = [...cpRuns].sort((a, b) => a.durable - b.durable)[1];
    console.log(`cp runs (until on disk): ${cpRuns.map((r) => `${r.durable.toFixed(2)} s`).join(', ')}`);

    const results = {};
    for (const backend of backends) {
      console.log(`${backend}: upload and downloads through the API`);
      results[backend] = await transferThrough(backend, size, source, work);
    }
    report(size, cp, results);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
