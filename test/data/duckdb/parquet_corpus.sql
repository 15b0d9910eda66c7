-- Parquet files written by DuckDB for silt's reader to decode (test/interop/
-- parquet_read_interop_test.cc compares every value with DuckDB's own reading of each file).
-- The test runs this script through the DuckDB peer with every 'corpus/ path rewritten into its
-- temporary folder.
--
-- One 20,000-row table holds a column of each type family, with NULLs at different strides, a
-- list sliced to lengths 0 to 3, a struct and a map. It is written once per variation the
-- reader must handle: each compression codec, data page v1 and v2, no dictionary, many small
-- row groups, field ids, an empty file, and a hive-partitioned folder of files.
CREATE TABLE base AS
SELECT
  range::BIGINT AS id,
  (range % 127)::TINYINT AS i8,
  (range % 30000)::SMALLINT AS i16,
  range::INT AS i32,
  (range / 3.0)::FLOAT AS f32,
  (range / 7.0)::DOUBLE AS f64,
  ((range % 100000) / 100)::DECIMAL(9,2) AS d9,
  ((range * 37) / 100)::DECIMAL(18,2) AS d18,
  (range / 1000)::DECIMAL(38,10) AS d38,
  DATE '2020-01-01' + (range % 2000)::INT AS dt,
  CASE WHEN range % 13 = 0 THEN NULL
       ELSE TIMESTAMP '2024-01-01' + to_microseconds(range * 1234567) END AS ts,
  (TIMESTAMP '2024-01-01' + to_seconds(range))::TIMESTAMPTZ AS tstz,
  CASE WHEN range % 11 = 0 THEN NULL
       ELSE 'str_' || (range % 997) || repeat('x', (range % 5)::INT) END AS s,
  CASE WHEN range % 17 = 0 THEN NULL ELSE range % 2 = 0 END AS b,
  ('\x00\xff'::BLOB || (range % 256)::VARCHAR::BLOB) AS bin,
  CASE WHEN range % 19 = 0 THEN NULL
       ELSE [range, range + 1, NULL][1:(range % 4)::INT] END AS lst,
  {'x': range % 5, 'y': 'v' || (range % 3)} AS st,
  MAP {'k' || (range % 3): range} AS mp
FROM range(20000);

-- Codecs, with version 1 data pages.
COPY base TO 'corpus/uncompressed_v1.parquet' (FORMAT parquet, COMPRESSION uncompressed);
COPY base TO 'corpus/snappy_v1.parquet' (FORMAT parquet, COMPRESSION snappy);
COPY base TO 'corpus/gzip_v1.parquet' (FORMAT parquet, COMPRESSION gzip);
COPY base TO 'corpus/zstd_v1.parquet' (FORMAT parquet, COMPRESSION zstd);
COPY base TO 'corpus/lz4raw_v1.parquet' (FORMAT parquet, COMPRESSION lz4_raw);
COPY base TO 'corpus/brotli_v1.parquet' (FORMAT parquet, COMPRESSION brotli);

-- Version 2 data pages.
COPY base TO 'corpus/snappy_v2.parquet' (FORMAT parquet, COMPRESSION snappy, PARQUET_VERSION v2);
COPY base TO 'corpus/zstd_v2.parquet' (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION v2);

-- Layout: plain encoding only, many row groups, one row group per file (a folder of files),
-- field ids in the schema, no rows at all.
COPY base TO 'corpus/nodict.parquet' (FORMAT parquet, DICTIONARY_SIZE_LIMIT 1);
COPY base TO 'corpus/rg1000.parquet' (FORMAT parquet, ROW_GROUP_SIZE 1000);
COPY base TO 'corpus/small_pages.parquet' (FORMAT parquet, ROW_GROUP_SIZE 20000, ROW_GROUPS_PER_FILE 1);
COPY base TO 'corpus/field_ids.parquet' (FORMAT parquet, FIELD_IDS 'auto');
COPY (SELECT * FROM base WHERE false) TO 'corpus/empty.parquet' (FORMAT parquet);

-- A hive-partitioned folder: corpus/partitioned/i8=<n>/part-<i>.parquet.
COPY base TO 'corpus/partitioned'
  (FORMAT parquet, PARTITION_BY (i8), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'part-{i}');
