// Runs SQL statements in an in-process DuckDB and prints their results. silt's interop tests and
// benchmarks call it through the `duckdb` wrapper beside this file, which installs the pinned
// @duckdb/node-api package first; run `duckdb --help` for the options.
//
// Output formats: `table` (aligned text for people), `csv` (a header line, then one line per row;
// NULL is an empty field), `json` (an array of row objects; with several results, an array of
// such arrays) and `jsonl` (one row object per line). Values come from DuckDB's JSON-safe
// conversion, so BIGINT, HUGEINT and DECIMAL values print as strings and nested values as JSON.
//
// Exit status: 0 when every statement ran, 1 when one failed (its error is on stderr and the
// statements after it are not run), 2 for a bad command line.

import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const USAGE = `usage: duckdb [options] (SQL ... | -f FILE | -)
  --db PATH            database file (default: a fresh in-memory database)
  --format FORMAT      table (default), csv, json or jsonl
  --threads N          DuckDB worker threads
  --memory-limit SIZE  DuckDB memory limit, e.g. 4GB
  --timer              print each statement's wall time in ms on stderr
  --quiet              print only the last statement's result
  -f FILE              read statements from FILE ('-' or a lone '-' reads standard input)
Several SQL arguments and files are joined in order; each may hold several statements.
`;

class UsageError extends Error {}

function parseArguments(argv) {
  const settings = { db: ':memory:', format: 'table', timer: false, quiet: false, config: {}, sql: [] };
  const valueOf = (index, option) => {
    if (index >= argv.length) throw new UsageError(`${option} needs a value`);
    return argv[index];
  };
  for (let i = 0; i < argv.length; ++i) {
    const arg = argv[i];
    switch (arg) {
      case '--db': settings.db = valueOf(++i, arg); break;
      case '--format': settings.format = valueOf(++i, arg); break;
      case '--threads': settings.config.threads = valueOf(++i, arg); break;
      case '--memory-limit': settings.config.memory_limit = valueOf(++i, arg); break;
      case '--timer': settings.timer = true; break;
      case '--quiet': settings.quiet = true; break;
      case '-f': case '--file': {
        const file = valueOf(++i, arg);
        settings.sql.push(readFileSync(file === '-' ? 0 : file, 'utf8'));
        break;
      }
      case '-': settings.sql.push(readFileSync(0, 'utf8')); break;
      case '-h': case '--help': process.stdout.write(USAGE); process.exit(0); break;
      default:
        if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
        settings.sql.push(arg);
    }
  }
  if (!['table', 'csv', 'json', 'jsonl'].includes(settings.format)) {
    throw new UsageError(`unknown format '${settings.format}' (table, csv, json or jsonl)`);
  }
  if (settings.config.threads !== undefined && !/^[1-9][0-9]*$/.test(settings.config.threads)) {
    throw new UsageError(`--threads wants a positive integer, not '${settings.config.threads}'`);
  }
  if (settings.sql.join('').trim() === '') throw new UsageError('no SQL to run');
  return settings;
}

// DuckDB's JSON-safe values are strings, numbers, booleans, null, arrays and objects; a BigInt is
// turned into its digits in case one slips through.
const toJson = (value) => JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));

function textOf(value) {
  if (value === null || value === undefined) return null;
  return typeof value === 'object' ? toJson(value) : String(value);
}

function csvField(value) {
  const text = textOf(value);
  if (text === null) return '';
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function tableText(names, rows) {
  const cells = rows.map((row) => row.map((value) => textOf(value) ?? 'NULL'));
  const widths = names.map((name, c) => Math.max(name.length, ...cells.map((row) => row[c].length)));
  const line = (row) => row.map((text, c) => text.padEnd(widths[c])).join(' | ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('-+-');
  const count = `(${rows.length} ${rows.length === 1 ? 'row' : 'rows'})`;
  return [line(names), rule, ...cells.map(line), count].join('\n') + '\n';
}

class Printer {
  constructor(format) {
    this.format = format;
    this.jsonResults = [];
  }

  print(reader) {
    const write = (text) => process.stdout.write(text);
    switch (this.format) {
      case 'csv': {
        const lines = [reader.deduplicatedColumnNames(), ...reader.getRowsJson()];
        write(lines.map((row) => row.map(csvField).join(',') + '\n').join(''));
        break;
      }
      case 'jsonl':
        write(reader.getRowObjectsJson().map((row) => toJson(row) + '\n').join(''));
        break;
      case 'json':
        this.jsonResults.push(reader.getRowObjectsJson());
        break;
      default:
        write(tableText(reader.deduplicatedColumnNames(), reader.getRowsJson()));
    }
  }

  finish() {
    if (this.format !== 'json' || this.jsonResults.length === 0) return;
    const document = this.jsonResults.length === 1 ? this.jsonResults[0] : this.jsonResults;
    process.stdout.write(toJson(document) + '\n');
  }
}

// The package is installed outside the source tree (the wrapper says where); without the
// wrapper, a node_modules folder beside this file is used.
function loadDuckDb() {
  const modules = process.env.SILT_DUCKDB_PEER_MODULES || join(fileURLToPath(import.meta.url), '..');
  return createRequire(join(modules, 'package.json'))('@duckdb/node-api');
}

async function run(settings) {
  const { DuckDBInstance } = loadDuckDb();
  const instance = await DuckDBInstance.create(settings.db, settings.config);
  const connection = await instance.connect();
  const printer = new Printer(settings.format);
  try {
    let statements;
    try {
      statements = await connection.extractStatements(settings.sql.join(';\n'));
    } catch (error) {
      process.stderr.write(`duckdb-peer: ${error.message}\n`);
      return 1;
    }
    const count = statements.count;
    for (let i = 0; i < count; ++i) {
      const started = process.hrtime.bigint();
      let reader;
      try {
        reader = await (await statements.prepare(i)).runAndReadAll();
      } catch (error) {
        process.stderr.write(`duckdb-peer: statement ${i + 1} of ${count} failed: ${error.message}\n`);
        return 1;
      }
      if (settings.timer) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        process.stderr.write(`statement ${i + 1} of ${count}: ${ms.toFixed(2)} ms\n`);
      }
      if (reader.columnCount > 0 && (!settings.quiet || i === count - 1)) printer.print(reader);
    }
    return 0;
  } finally {
    printer.finish();
    connection.closeSync();
    instance.closeSync();
  }
}

let settings;
try {
  settings = parseArguments(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`duckdb-peer: ${error.message}\n${USAGE}`);
  process.exit(2);
}
// exitCode rather than exit(): output still queued for a slow pipe reader must not be lost.
process.exitCode = await run(settings).catch((error) => {
  process.stderr.write(`duckdb-peer: ${error.message}\n`);
  return 1;
});
