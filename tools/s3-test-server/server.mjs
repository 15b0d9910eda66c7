// An S3-compatible server on 127.0.0.1 for silt's tests and benchmark: s3rver (a filesystem-backed
// S3 emulator) behind a small proxy of our own that
//   - answers PUT with "If-None-Match: *" as S3 does (412 PreconditionFailed when the key exists),
//     one writer at a time per key, since s3rver ignores the header;
//   - injects faults on request: POST /__faults with JSON {kind, count, method, match, delayMs}
//     arms `count` faults of `kind` for requests whose method is `method` (any when absent) and
//     whose URL contains `match`:  "reset" closes the connection without an answer, "503" answers
//     503 SlowDown, "slow" waits delayMs before serving, "lost-reply" serves the request and
//     then closes the connection without the answer;
//   - answers ListObjectsV2 with a delimiter itself, from s3rver's flat listing: s3rver leaves out
//     the common prefixes whose objects are two or more levels below the prefix;
//   - counts: GET /__stats gives {requests, byMethod, bytesSent, faultsFired}; POST /__reset-stats;
//   - stands in for the credential endpoints: GET /__container-credentials as ECS's (it wants the
//     Authorization header "container-token"), and /__imds/latest/... as EC2's IMDSv2, both
//     handing out s3rver's key as temporary credentials.
// Usage: node server.mjs --dir FOLDER [--bucket NAME]... ; prints "READY <port>" when listening.
// It stops by itself when its standard input closes (the test that started it went away).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.env.SILT_S3_SERVER_MODULES, 'node_modules'));
const S3rver = require('s3rver');

const args = process.argv.slice(2);
let directory = null;
const buckets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--dir') directory = args[++i];
  else if (args[i] === '--bucket') buckets.push(args[++i]);
  else throw new Error(`unknown argument ${args[i]}`);
}
if (!directory) throw new Error('--dir is required');
fs.mkdirSync(directory, { recursive: true });

const upstream = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: buckets.map((name) => ({ name })),
});
const upstreamAddress = await upstream.run();
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

let faults = [];
const stats = { requests: 0, byMethod: {}, bytesSent: 0, faultsFired: 0 };
const keyLocks = new Map();

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function forward(request, body, headers = request.headers) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: '127.0.0.1',
        port: upstreamAddress.port,
        method: request.method,
        path: request.url,
        headers: { ...headers, 'content-length': body.length },
        agent,
      },
      (response) => {
        const chunks = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function takeFault(request) {
  const index = faults.findIndex(
    (fault) =>
      fault.count > 0 &&
      (!fault.method || fault.method === request.method) &&
      (!fault.match || request.url.includes(fault.match)),
  );
  if (index < 0) return null;
  const fault = faults[index];
  fault.count -= 1;
  if (fault.count === 0) faults.splice(index, 1);
  stats.faultsFired += 1;
  return fault;
}

async function withKeyLock(key, action) {
  const previous = keyLocks.get(key) || Promise.resolve();
  let release;
  const current = new Promise((resolve) => (release = resolve));
  const chained = previous.then(() => current);
  keyLocks.set(key, chained);
  await previous;
  try {
    return await action();
  } finally {
    release();
    if (keyLocks.get(key) === chained) keyLocks.delete(key);
  }
}

function send(response, reply, method = 'GET') {
  const headers = { ...reply.headers };
  for (const hop of ['transfer-encoding', 'connection', 'keep-alive']) delete headers[hop];
  // A HEAD answer carries the object's length without its bytes.
  if (method !== 'HEAD' || headers['content-length'] === undefined) {
    headers['content-length'] = reply.body.length;
  }
  response.writeHead(reply.status, headers);
  response.end(reply.body);
}

function xmlError(status, code, message) {
  return {
    status,
    headers: { 'content-type': 'application/xml' },
    body: Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    ),
  };
}

function xmlEscape(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function xmlUnescape(text) {
  return text
    .replace(/&#x([0-9a-fA-F]+);/g, (_, hex) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]+);/g, (_, dec) => String.fromCodePoint(parseInt(dec, 10)))
    .replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

// ListObjectsV2 with a delimiter: every key below the prefix from s3rver (no delimiter, all
// pages), grouped here. The continuation token is the last key or common prefix returned.
async function listWithDelimiter(request, url) {
  const bucketPath = url.pathname;
  const prefix = url.searchParams.get('prefix') || '';
  const delimiter = url.searchParams.get('delimiter');
  const maxKeys = Math.min(1000, parseInt(url.searchParams.get('max-keys') || '1000', 10));
  const token = url.searchParams.get('continuation-token');
  const after = token ? Buffer.from(token, 'base64').toString('utf8') : url.searchParams.get('start-after') || '';
  const objects = [];
  let upstreamToken = null;
  do {
    const query = new URLSearchParams({ 'list-type': '2', prefix, 'max-keys': '1000' });
    if (upstreamToken) query.set('continuation-token', upstreamToken);
    else if (after) query.set('start-after', after);
    const reply = await forward({ method: 'GET', url: `${bucketPath}?${query}` }, Buffer.alloc(0), {});
    if (reply.status !== 200) return reply;
    const text = reply.body.toString('utf8');
    for (const match of text.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const field = (name) => (match[1].match(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`)) || [])[1] || '';
      objects.push({ key: xmlUnescape(field('Key')), raw: match[1] });
    }
    const truncated = /<IsTruncated>true<\/IsTruncated>/.test(text);
    upstreamToken = truncated ? xmlUnescape((text.match(/<NextContinuationToken>([^<]*)</) || [])[1] || '') : null;
  } while (upstreamToken);
  const entries = [];
  let truncated = false;
  for (const object of objects) {
    if (object.key <= after || (after.endsWith(delimiter) && object.key.startsWith(after))) continue;
    const rest = object.key.slice(prefix.length);
    const cut = rest.indexOf(delimiter);
    const entry = cut >= 0 ? { prefix: prefix + rest.slice(0, cut + delimiter.length) } : object;
    const name = entry.prefix || entry.key;
    if (entries.length > 0 && (entries[entries.length - 1].prefix || entries[entries.length - 1].key) === name) continue;
    if (entries.length === maxKeys) {
      truncated = true;
      break;
    }
    entries.push(entry);
  }
  const last = entries.length ? entries[entries.length - 1].prefix || entries[entries.length - 1].key : '';
  let body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`;
  body += `<Name>${xmlEscape(bucketPath.slice(1))}</Name><Prefix>${xmlEscape(prefix)}</Prefix>`;
  body += `<KeyCount>${entries.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><Delimiter>${xmlEscape(delimiter)}</Delimiter>`;
  body += `<IsTruncated>${truncated}</IsTruncated>`;
  if (truncated) body += `<NextContinuationToken>${Buffer.from(last, 'utf8').toString('base64')}</NextContinuationToken>`;
  for (const entry of entries) {
    body += entry.prefix
      ? `<CommonPrefixes><Prefix>${xmlEscape(entry.prefix)}</Prefix></CommonPrefixes>`
      : `<Contents>${entry.raw}</Contents>`;
  }
  body += '</ListBucketResult>';
  return { status: 200, headers: { 'content-type': 'application/xml' }, body: Buffer.from(body) };
}

async function serve(request, response) {
  const body = await readBody(request);
  if (request.url === '/__faults' && request.method === 'POST') {
    const fault = JSON.parse(body.toString());
    faults.push({ count: 1, ...fault });
    return send(response, { status: 200, headers: {}, body: Buffer.from('{}') });
  }
  if (request.url === '/__clear-faults' && request.method === 'POST') {
    faults = [];
    return send(response, { status: 200, headers: {}, body: Buffer.from('{}') });
  }
  if (request.url === '/__stats') {
    return send(response, { status: 200, headers: {}, body: Buffer.from(JSON.stringify(stats)) });
  }
  if (request.url === '/__reset-stats' && request.method === 'POST') {
    Object.assign(stats, { requests: 0, byMethod: {}, bytesSent: 0, faultsFired: 0 });
    return send(response, { status: 200, headers: {}, body: Buffer.from('{}') });
  }
  const credentials = JSON.stringify({
    AccessKeyId: 'S3RVER',
    SecretAccessKey: 'S3RVER',
    Token: 'metadata-token',
    Expiration: new Date(Date.now() + 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
  });
  if (request.url === '/__container-credentials') {
    const ok = request.headers.authorization === 'container-token';
    return send(response, { status: ok ? 200 : 403, headers: {}, body: Buffer.from(ok ? credentials : '') });
  }
  if (request.url.startsWith('/__imds/')) {
    const route = request.url.slice('/__imds'.length);
    if (route === '/latest/api/token' && request.method === 'PUT') {
      return send(response, { status: 200, headers: {}, body: Buffer.from('imds-session') });
    }
    if (request.headers['x-aws-ec2-metadata-token'] !== 'imds-session') {
      return send(response, { status: 401, headers: {}, body: Buffer.alloc(0) });
    }
    if (route === '/latest/meta-data/iam/security-credentials/') {
      return send(response, { status: 200, headers: {}, body: Buffer.from('silt-role') });
    }
    if (route === '/latest/meta-data/iam/security-credentials/silt-role') {
      return send(response, { status: 200, headers: {}, body: Buffer.from(credentials) });
    }
    return send(response, { status: 404, headers: {}, body: Buffer.alloc(0) });
  }
  stats.requests += 1;
  stats.byMethod[request.method] = (stats.byMethod[request.method] || 0) + 1;

  const fault = takeFault(request);
  if (fault?.kind === 'reset') return request.socket.destroy();
  if (fault?.kind === '503') return send(response, xmlError(503, 'SlowDown', 'Please reduce your request rate.'));
  if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs || 1000));

  let reply;
  const pathOnly = request.url.split('?')[0];
  const url = new URL(request.url, 'http://127.0.0.1');
  if (
    request.method === 'GET' &&
    url.searchParams.get('list-type') === '2' &&
    url.searchParams.get('delimiter') &&
    url.pathname.split('/').filter(Boolean).length === 1
  ) {
    reply = await listWithDelimiter(request, url);
  } else if (request.method === 'PUT' && request.headers['if-none-match'] === '*') {
    const headers = { ...request.headers };
    delete headers['if-none-match'];
    reply = await withKeyLock(pathOnly, async () => {
      // s3rver serves unsigned requests, so the proxy looks without signing.
      const head = await forward({ method: 'HEAD', url: pathOnly }, Buffer.alloc(0), {});
      if (head.status === 200) {
        return xmlError(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      }
      return forward(request, body, headers);
    });
  } else {
    reply = await forward(request, body);
  }
  stats.bytesSent += reply.body.length;
  if (fault?.kind === 'lost-reply') return request.socket.destroy();
  send(response, reply, request.method);
}

const proxy = http.createServer((request, response) => {
  serve(request, response).catch((error) => {
    if (!response.headersSent) send(response, xmlError(500, 'InternalError', String(error)));
  });
});
proxy.keepAliveTimeout = 30000;
proxy.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${proxy.address().port}\n`);
});

function stop() {
  proxy.close();
  upstream.close();
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
