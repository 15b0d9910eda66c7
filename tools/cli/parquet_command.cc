#include "parquet_command.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "schema_tree.h"
#include "silt/base/check.h"
#include "silt/io/file_system.h"
#include "silt/parquet/codec.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/writer.h"
#include "silt/vector/batch.h"

namespace silt::cli {
namespace {

struct CatOptions {
  std::string path;
  std::string format = "table";
  std::vector<std::string> columns;
  int64_t limit = -1;
  bool no_truncate = false;
};

std::unique_ptr<parquet::FileReader> OpenFile(const std::string& path) {
  auto fs = io::MakeLocalFileSystem();
  return parquet::FileReader::Open(*fs, path);
}

void RunSchema(const std::string& path) {
  auto reader = OpenFile(path);
  std::cout << FormatSchemaTree(reader->schema());
}

// Statistics are raw Parquet bytes; print them only as a size to stay type-agnostic.
void RunMeta(const std::string& path) {
  auto reader = OpenFile(path);
  const parquet::FileMetaData& meta = reader->metadata();
  std::cout << "file: " << path << "\n"
            << "created_by: " << meta.created_by.value_or("") << "\n"
            << "format_version: " << meta.version << "\n"
            << "num_rows: " << meta.num_rows << "\n"
            << "num_row_groups: " << meta.row_groups.size() << "\n";
  for (const auto& kv : meta.key_value_metadata) {
    std::cout << "metadata: " << kv.key << " = " << kv.value.value_or("") << "\n";
  }
  for (size_t g = 0; g < meta.row_groups.size(); ++g) {
    const parquet::RowGroup& group = meta.row_groups[g];
    std::cout << "row_group " << g << ": rows=" << group.num_rows
              << " bytes=" << group.total_byte_size << "\n";
    for (const auto& chunk : group.columns) {
      if (!chunk.meta_data) continue;
      const parquet::ColumnMetaData& column = *chunk.meta_data;
      std::string name;
      for (const auto& part : column.path_in_schema) name += (name.empty() ? "" : ".") + part;
      std::cout << "  " << name << ": codec=" << parquet::CodecName(column.codec)
                << " values=" << column.num_values
                << " compressed=" << column.total_compressed_size
                << " uncompressed=" << column.total_uncompressed_size;
      if (column.statistics && column.statistics->null_count) {
        std::cout << " nulls=" << *column.statistics->null_count;
      }
      std::cout << "\n";
    }
  }
}

void RunCat(const CatOptions& options) {
  auto reader = OpenFile(options.path);
  parquet::ReadOptions read_options;
  read_options.columns = options.columns;
  std::vector<Batch> batches = reader->Read(read_options);
  if (options.limit >= 0) {
    std::vector<Batch> limited;
    int64_t remaining = options.limit;
    for (const Batch& batch : batches) {
      if (remaining <= 0) break;
      int64_t take = std::min<int64_t>(remaining, batch.num_rows());
      limited.push_back(batch.Slice(0, take));
      remaining -= take;
    }
    batches = std::move(limited);
  }
  if (options.format == "csv") {
    std::cout << FormatCsv(batches);
  } else if (options.format == "json") {
    std::cout << FormatJsonLines(batches);
  } else {
    ShowOptions show;
    show.max_rows = options.limit >= 0 ? options.limit : INT64_MAX;
    show.truncate = options.no_truncate ? 0 : 20;
    std::cout << FormatShow(batches, show);
  }
}

struct RewriteOptions {
  std::string input;
  std::string output;
  std::string codec = "snappy";
};

parquet::CompressionCodec ParseCodec(const std::string& name) {
  if (name == "none" || name == "uncompressed") return parquet::CompressionCodec::kUncompressed;
  if (name == "snappy") return parquet::CompressionCodec::kSnappy;
  if (name == "gzip") return parquet::CompressionCodec::kGzip;
  if (name == "zstd") return parquet::CompressionCodec::kZstd;
  if (name == "lz4") return parquet::CompressionCodec::kLz4Raw;
  if (name == "brotli") return parquet::CompressionCodec::kBrotli;
  SILT_THROW(INVALID_ARGUMENT, {{"message", "unknown codec '" + name + "'"}});
}

// Reads every row group and writes it again with silt's writer: a codec change, and a way to
// check that silt round-trips a file another engine wrote.
void RunRewrite(const RewriteOptions& options) {
  auto fs = io::MakeLocalFileSystem();
  auto reader = parquet::FileReader::Open(*fs, options.input);
  parquet::WriterOptions write_options;
  write_options.codec = ParseCodec(options.codec);
  auto writer = parquet::FileWriter::Open(fs->OpenWrite(options.output), reader->schema(),
                                          write_options);
  for (int group = 0; group < reader->num_row_groups(); ++group) {
    writer->Write(reader->ReadRowGroup(group, {}));
  }
  parquet::FileMetaData written = writer->Close();
  std::cout << "wrote " << written.num_rows << " rows in " << written.row_groups.size()
            << " row group(s) to " << options.output << "\n";
}

}  // namespace

void AddParquetCommands(CLI::App& app) {
  CLI::App* parquet = app.add_subcommand("parquet", "Inspect and print Parquet files");
  parquet->require_subcommand(1);

  auto schema_path = std::make_shared<std::string>();
  CLI::App* schema = parquet->add_subcommand("schema", "Print a file's schema as silt types");
  schema->add_option("file", *schema_path, "Parquet file")->type_name("FILE")->required();
  schema->callback([schema_path] { RunSchema(*schema_path); });

  auto meta_path = std::make_shared<std::string>();
  CLI::App* meta = parquet->add_subcommand("meta", "Print a file's footer: row groups, columns, codecs");
  meta->add_option("file", *meta_path, "Parquet file")->type_name("FILE")->required();
  meta->callback([meta_path] { RunMeta(*meta_path); });

  auto cat_options = std::make_shared<CatOptions>();
  CLI::App* cat = parquet->add_subcommand("cat", "Print a file's rows");
  cat->add_option("file", cat_options->path, "Parquet file")->type_name("FILE")->required();
  cat->add_option("--format", cat_options->format, "table (like Spark's show), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cat->add_option("--columns", cat_options->columns, "Columns to print (comma-separated)")
      ->delimiter(',');
  cat->add_option("--limit", cat_options->limit, "Print at most this many rows");
  cat->add_flag("--no-truncate", cat_options->no_truncate, "Do not cut cells at 20 characters");
  cat->callback([cat_options] { RunCat(*cat_options); });

  auto rewrite_options = std::make_shared<RewriteOptions>();
  CLI::App* rewrite =
      parquet->add_subcommand("rewrite", "Read a file and write it again with silt's writer");
  rewrite->add_option("input", rewrite_options->input, "Parquet file to read")->type_name("FILE")->required();
  rewrite->add_option("output", rewrite_options->output, "Parquet file to write")->type_name("FILE")->required();
  rewrite->add_option("--codec", rewrite_options->codec, "none, snappy, gzip, zstd, lz4 or brotli")
      ->check(CLI::IsMember({"none", "uncompressed", "snappy", "gzip", "zstd", "lz4", "brotli"}));
  rewrite->callback([rewrite_options] { RunRewrite(*rewrite_options); });
}

}  // namespace silt::cli
