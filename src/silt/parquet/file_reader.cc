#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/parquet/column_reader.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/schema_from_parquet.h"

namespace silt::parquet {
namespace {

constexpr char kMagic[] = "PAR1";
constexpr char kEncryptedMagic[] = "PARE";
constexpr size_t kMagicSize = 4;
constexpr size_t kFooterTailSize = 8;  // footer length + magic

[[noreturn]] void CorruptFile(const std::string& path, const std::string& what) {
  SILT_THROW(PARQUET_CORRUPT_FILE, {{"path", path}, {"message", what}});
}

// The decoders raise errors with a placeholder path ("<footer>", "<page>", "<schema>") because
// they see only bytes; this puts the file and the place in the file in their stead.
[[noreturn]] void RethrowWithLocation(const Error& error, const std::string& path,
                                      const std::string& where) {
  std::string_view name = error.error_class();
  const std::string& message = error.message();
  for (const char* placeholder : {"<footer>", "<page>", "<schema>"}) {
    std::string marker = std::string(placeholder) + ": ";
    size_t at = message.find(marker);
    if (at == std::string::npos) continue;
    std::string detail = message.substr(at + marker.size());
    if (!where.empty()) detail = where + ": " + detail;
    if (name == "PARQUET_CORRUPT_FILE") {
      throw MakeError(ErrorClass::PARQUET_CORRUPT_FILE, {{"path", path}, {"message", detail}});
    }
    if (name == "PARQUET_UNSUPPORTED_FEATURE") {
      throw MakeError(ErrorClass::PARQUET_UNSUPPORTED_FEATURE,
                      {{"path", path}, {"feature", detail}});
    }
  }
  if (where.empty()) throw error;
  throw error.WithContext(path + ", " + where);
}

// Statistics bounds in a comparable form.
struct Bound {
  enum class Kind { kNone, kInt, kDouble, kDecimal, kBytes };
  Kind kind = Kind::kNone;
  int64_t int_value = 0;
  double double_value = 0;
  Decimal128 decimal_value = 0;
  std::string bytes;
};

template <typename T>
bool LoadExact(const std::string& raw, T* out) {
  if (raw.size() != sizeof(T)) return false;
  std::memcpy(out, raw.data(), sizeof(T));
  return true;
}

int64_t FloorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && (value < 0)) --quotient;
  return quotient;
}

// Decodes a PLAIN-encoded statistics value of `leaf` into the comparison domain of its silt
// type; kind kNone when it cannot be used.
Bound DecodeBound(const LeafColumn& leaf, const std::string& raw) {
  Bound bound;
  TypeId id = leaf.type->id();
  switch (leaf.conversion) {
    case ValueConversion::kInt32ToDecimal: {
      int32_t value;
      if (!LoadExact(raw, &value)) return bound;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = value;
      return bound;
    }
    case ValueConversion::kInt64ToDecimal: {
      int64_t value;
      if (!LoadExact(raw, &value)) return bound;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = value;
      return bound;
    }
    case ValueConversion::kUint64ToDecimal: {
      uint64_t value;
      if (!LoadExact(raw, &value)) return bound;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = static_cast<Decimal128>(value);
      return bound;
    }
    case ValueConversion::kBytesToDecimal: {
      if (raw.empty() || raw.size() > 16) return bound;
      const auto* bytes = reinterpret_cast<const uint8_t*>(raw.data());
      unsigned __int128 value = (bytes[0] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
      for (uint8_t byte : raw) value = (value << 8) | byte;
      bound.kind = Bound::Kind::kDecimal;
      bound.decimal_value = static_cast<Decimal128>(value);
      return bound;
    }
    case ValueConversion::kInt96ToTimestamp:
      return bound;  // No defined order.
    default:
      break;
  }
  if (id == TypeId::kString || id == TypeId::kBinary) {
    if (leaf.conversion != ValueConversion::kByteArray) return bound;
    bound.kind = Bound::Kind::kBytes;
    bound.bytes = raw;
    return bound;
  }
  if (id == TypeId::kFloat || id == TypeId::kDouble) {
    double value;
    if (id == TypeId::kFloat) {
      float single;
      if (!LoadExact(raw, &single)) return bound;
      value = single;
    } else if (!LoadExact(raw, &value)) {
      return bound;
    }
    if (std::isnan(value)) return bound;
    bound.kind = Bound::Kind::kDouble;
    bound.double_value = value;
    return bound;
  }
  if (leaf.physical_type == PhysicalType::kInt32) {
    int32_t value;
    if (!LoadExact(raw, &value)) return bound;
    bound.kind = Bound::Kind::kInt;
    bound.int_value = leaf.is_unsigned ? static_cast<int64_t>(static_cast<uint32_t>(value)) : value;
    if (leaf.conversion == ValueConversion::kTimeMillisToLong) bound.int_value *= 1000;
    return bound;
  }
  if (leaf.physical_type == PhysicalType::kInt64) {
    int64_t value;
    if (!LoadExact(raw, &value)) return bound;
    bound.kind = Bound::Kind::kInt;
    if (leaf.conversion == ValueConversion::kMillisToMicros) {
      if (__builtin_mul_overflow(value, int64_t{1000}, &bound.int_value))
        bound.kind = Bound::Kind::kNone;
    } else if (leaf.conversion == ValueConversion::kNanosToMicros) {
      bound.int_value = FloorDivide(value, 1000);
    } else {
      bound.int_value = value;
    }
    return bound;
  }
  return bound;
}

// -1, 0, 1 comparing the bound with the literal, or nullopt when they are not comparable.
std::optional<int> Compare(const Bound& bound, const StatsLiteral& literal) {
  auto order = [](auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); };
  switch (bound.kind) {
    case Bound::Kind::kInt:
      if (literal.int_value) return order(bound.int_value, *literal.int_value);
      return std::nullopt;
    case Bound::Kind::kDouble:
      if (literal.double_value && !std::isnan(*literal.double_value)) {
        return order(bound.double_value, *literal.double_value);
      }
      if (literal.int_value)
        return order(bound.double_value, static_cast<double>(*literal.int_value));
      return std::nullopt;
    case Bound::Kind::kDecimal:
      if (literal.decimal_value) return order(bound.decimal_value, *literal.decimal_value);
      return std::nullopt;
    case Bound::Kind::kBytes:
      if (literal.string_value) {
        // std::string compares bytes as unsigned char, the order Parquet defines for binary.
        int result = bound.bytes.compare(*literal.string_value);
        return result < 0 ? -1 : (result > 0 ? 1 : 0);
      }
      return std::nullopt;
    case Bound::Kind::kNone:
      break;
  }
  return std::nullopt;
}

class FileReaderImpl final : public FileReader {
 public:
  FileReaderImpl(std::shared_ptr<io::RandomAccessFile> file, FileMetaData metadata,
                 ParquetSchema mapping, uint64_t file_size)
      : file_(std::move(file)),
        metadata_(std::move(metadata)),
        mapping_(std::move(mapping)),
        file_size_(file_size) {}

  const FileMetaData& metadata() const override { return metadata_; }
  const Schema& schema() const override { return mapping_.schema; }
  int64_t num_rows() const override { return metadata_.num_rows; }
  int num_row_groups() const override { return static_cast<int>(metadata_.row_groups.size()); }

  std::vector<int> SelectRowGroups(const ReadOptions& options) const override {
    std::vector<int> candidates;
    if (options.row_groups.empty()) {
      for (int i = 0; i < num_row_groups(); ++i) candidates.push_back(i);
    } else {
      for (int index : options.row_groups) {
        SILT_USER_CHECK(index >= 0 && index < num_row_groups(), INVALID_ARGUMENT,
                        {{"message", "row group " + std::to_string(index) + " out of range in " +
                                         file_->path()}});
        candidates.push_back(index);
      }
    }
    std::vector<int> selected;
    for (int index : candidates) {
      bool keep = true;
      for (const ColumnPredicate& predicate : options.predicates) {
        if (!MightMatch(metadata_.row_groups[static_cast<size_t>(index)], predicate)) {
          keep = false;
          break;
        }
      }
      if (keep) selected.push_back(index);
    }
    return selected;
  }

  Batch ReadRowGroup(int index, const ReadOptions& options) const override {
    SILT_USER_CHECK(
        index >= 0 && index < num_row_groups(), INVALID_ARGUMENT,
        {{"message", "row group " + std::to_string(index) + " out of range in " + file_->path()}});
    std::vector<int> columns = Project(options);
    std::vector<VectorPtr> vectors(columns.size());
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    pool.ParallelFor(
        columns.size(), [&](size_t c) { vectors[c] = ReadColumn(index, columns[c]); },
        options.max_parallelism);
    return MakeBatch(columns, std::move(vectors), index);
  }

  void Scan(const ReadOptions& options,
            const std::function<void(int, Batch)>& consume) const override {
    std::vector<int> groups = SelectRowGroups(options);
    if (groups.size() == 1) {
      consume(groups[0], ReadRowGroup(groups[0], options));
      return;
    }
    // A row group per task: each thread decodes a whole row group, hands it over and frees it
    // before taking the next, so memory stays at a few row groups whatever the file's size.
    ReadOptions per_group = options;
    per_group.max_parallelism = 1;
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    pool.ParallelFor(
        groups.size(), [&](size_t i) { consume(groups[i], ReadRowGroup(groups[i], per_group)); },
        options.max_parallelism);
  }

  std::vector<Batch> Read(const ReadOptions& options) const override {
    std::vector<int> groups = SelectRowGroups(options);
    std::vector<int> columns = Project(options);
    std::vector<std::vector<VectorPtr>> vectors(groups.size(),
                                                std::vector<VectorPtr>(columns.size()));
    ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
    // One task per (row group, column): enough tasks to keep every thread busy even for a file
    // with a single row group.
    size_t tasks = groups.size() * columns.size();
    pool.ParallelFor(
        tasks,
        [&](size_t task) {
          size_t group = task / columns.size();
          size_t column = task % columns.size();
          vectors[group][column] = ReadColumn(groups[group], columns[column]);
        },
        options.max_parallelism);
    std::vector<Batch> batches;
    for (size_t g = 0; g < groups.size(); ++g) {
      batches.push_back(MakeBatch(columns, std::move(vectors[g]), groups[g]));
    }
    return batches;
  }

 private:
  // Top-level column indexes selected by `options`.
  std::vector<int> Project(const ReadOptions& options) const {
    std::vector<int> columns;
    if (!options.columns.empty()) {
      for (const std::string& name : options.columns) {
        int index = mapping_.schema.FieldIndex(name, true);
        if (index < 0) index = mapping_.schema.FieldIndex(name, false);
        SILT_USER_CHECK(index >= 0, PARQUET_COLUMN_NOT_FOUND,
                        {{"column", name}, {"path", file_->path()}});
        columns.push_back(index);
      }
      return columns;
    }
    if (!options.field_ids.empty()) {
      for (int32_t id : options.field_ids) {
        int found = -1;
        std::string wanted = std::to_string(id);
        for (size_t i = 0; i < mapping_.schema.num_fields(); ++i) {
          const std::string* value = mapping_.schema.field(i).FindMetadata("parquet.field.id");
          if (value != nullptr && *value == wanted) {
            found = static_cast<int>(i);
            break;
          }
        }
        SILT_USER_CHECK(found >= 0, PARQUET_COLUMN_NOT_FOUND,
                        {{"column", "with field id " + wanted}, {"path", file_->path()}});
        columns.push_back(found);
      }
      return columns;
    }
    for (size_t i = 0; i < mapping_.schema.num_fields(); ++i)
      columns.push_back(static_cast<int>(i));
    return columns;
  }

  Batch MakeBatch(const std::vector<int>& columns, std::vector<VectorPtr> vectors,
                  int group) const {
    std::vector<Field> fields;
    for (int c : columns) fields.push_back(mapping_.schema.field(static_cast<size_t>(c)));
    return Batch(std::make_shared<const Schema>(std::move(fields)), std::move(vectors),
                 metadata_.row_groups[static_cast<size_t>(group)].num_rows);
  }

  VectorPtr ReadColumn(int group, int column) const {
    const RowGroup& row_group = metadata_.row_groups[static_cast<size_t>(group)];
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(column)];
    std::string where;
    try {
      std::vector<ColumnChunkData> chunks(mapping_.leaves.size());
      for (int leaf = node.first_leaf; leaf < node.first_leaf + node.leaf_count; ++leaf) {
        const LeafColumn& leaf_column = mapping_.leaves[static_cast<size_t>(leaf)];
        where = "row group " + std::to_string(group) + ", column " + JoinPath(leaf_column.path);
        chunks[static_cast<size_t>(leaf)] = ReadColumnChunk(
            *file_, file_size_, row_group.columns[static_cast<size_t>(leaf_column.column_index)],
            leaf_column);
      }
      where = "row group " + std::to_string(group) + ", column " + node.field.name;
      return AssembleColumn(node, mapping_.leaves, chunks, row_group.num_rows);
    } catch (const Error& error) {
      RethrowWithLocation(error, file_->path(), where);
    }
  }

  static std::string JoinPath(const std::vector<std::string>& path) {
    std::string joined;
    for (const std::string& part : path) {
      if (!joined.empty()) joined += '.';
      joined += part;
    }
    return joined;
  }

  bool MightMatch(const RowGroup& group, const ColumnPredicate& predicate) const {
    int index = mapping_.schema.FieldIndex(predicate.column, true);
    if (index < 0) index = mapping_.schema.FieldIndex(predicate.column, false);
    if (index < 0) return true;
    const SchemaNode& node = mapping_.columns[static_cast<size_t>(index)];
    if (node.kind != SchemaNode::Kind::kLeaf) return true;
    const LeafColumn& leaf = mapping_.leaves[static_cast<size_t>(node.leaf_index)];
    const ColumnChunk& chunk = group.columns[static_cast<size_t>(leaf.column_index)];
    if (!chunk.meta_data || !chunk.meta_data->statistics) return true;
    const Statistics& stats = *chunk.meta_data->statistics;
    int64_t values = chunk.meta_data->num_values;
    bool all_null = stats.null_count && *stats.null_count == values;
    switch (predicate.op) {
      case ColumnPredicate::Op::kIsNull:
        return !(stats.null_count && *stats.null_count == 0);
      case ColumnPredicate::Op::kIsNotNull:
        return !all_null;
      default:
        break;
    }
    if (all_null && values > 0) return false;  // A comparison with NULL is never true.
    const std::string* min = nullptr;
    const std::string* max = nullptr;
    size_t leaf_position = static_cast<size_t>(node.leaf_index);
    bool type_defined_order =
        metadata_.column_orders.empty() ||
        (leaf_position < metadata_.column_orders.size() && metadata_.column_orders[leaf_position]);
    if (stats.min_value && stats.max_value && type_defined_order) {
      min = &*stats.min_value;
      max = &*stats.max_value;
    } else if (stats.min && stats.max && leaf.signed_order) {
      // The deprecated fields were written with signed comparison: valid only where the type's
      // order is signed.
      min = &*stats.min;
      max = &*stats.max;
    } else {
      return true;
    }
    Bound low = DecodeBound(leaf, *min);
    Bound high = DecodeBound(leaf, *max);
    std::optional<int> low_order = Compare(low, predicate.literal);
    std::optional<int> high_order = Compare(high, predicate.literal);
    if (!low_order || !high_order) return true;
    switch (predicate.op) {
      case ColumnPredicate::Op::kEqual:
        return *low_order <= 0 && *high_order >= 0;
      case ColumnPredicate::Op::kLess:
        return *low_order < 0;
      case ColumnPredicate::Op::kLessOrEqual:
        return *low_order <= 0;
      case ColumnPredicate::Op::kGreater:
        return *high_order > 0;
      case ColumnPredicate::Op::kGreaterOrEqual:
        return *high_order >= 0;
      default:
        return true;
    }
  }

  std::shared_ptr<io::RandomAccessFile> file_;
  FileMetaData metadata_;
  ParquetSchema mapping_;
  uint64_t file_size_;
};

// Checks what the footer says about row groups and column chunks against the file and schema,
// before anything is allocated from those numbers.
void ValidateMetadata(const FileMetaData& metadata, const ParquetSchema& mapping, uint64_t data_end,
                      const std::string& path) {
  if (metadata.num_rows < 0) CorruptFile(path, "negative row count");
  int64_t total_rows = 0;
  for (size_t g = 0; g < metadata.row_groups.size(); ++g) {
    const RowGroup& group = metadata.row_groups[g];
    std::string where = "row group " + std::to_string(g) + ": ";
    if (group.num_rows < 0) CorruptFile(path, where + "negative row count");
    if (__builtin_add_overflow(total_rows, group.num_rows, &total_rows)) {
      CorruptFile(path, "row counts overflow");
    }
    if (group.columns.size() != mapping.leaves.size()) {
      CorruptFile(path, where + std::to_string(group.columns.size()) + " column chunks for " +
                            std::to_string(mapping.leaves.size()) + " schema columns");
    }
    for (size_t c = 0; c < group.columns.size(); ++c) {
      const ColumnChunk& chunk = group.columns[c];
      const LeafColumn& leaf = mapping.leaves[c];
      if (!chunk.meta_data) CorruptFile(path, where + "column chunk without metadata");
      const ColumnMetaData& meta = *chunk.meta_data;
      if (meta.type != leaf.physical_type) {
        CorruptFile(path, where + "column " + std::to_string(c) +
                              " has a different physical type than the schema");
      }
      int64_t start = meta.data_page_offset;
      if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
          *meta.dictionary_page_offset < start) {
        start = *meta.dictionary_page_offset;
      }
      if (start < 0 || meta.total_compressed_size < 0 || meta.num_values < 0 ||
          static_cast<uint64_t>(start) > data_end ||
          static_cast<uint64_t>(meta.total_compressed_size) >
              data_end - static_cast<uint64_t>(start)) {
        CorruptFile(path,
                    where + "column chunk " + std::to_string(c) + " lies outside the file's data");
      }
      if (leaf.max_repetition_level == 0 && meta.num_values != group.num_rows) {
        CorruptFile(path, where + "column " + std::to_string(c) + " has " +
                              std::to_string(meta.num_values) + " values for " +
                              std::to_string(group.num_rows) + " rows");
      }
    }
  }
  if (!metadata.row_groups.empty() && total_rows != metadata.num_rows) {
    CorruptFile(path, "row groups hold " + std::to_string(total_rows) + " rows, footer says " +
                          std::to_string(metadata.num_rows));
  }
}

}  // namespace

std::unique_ptr<FileReader> FileReader::Open(std::shared_ptr<io::RandomAccessFile> file) {
  SILT_CHECK(file != nullptr, "FileReader::Open needs a file");
  const std::string& path = file->path();
  uint64_t size = file->Size();
  if (size < kMagicSize + kFooterTailSize) {
    CorruptFile(path, "file of " + std::to_string(size) + " bytes is too small to be Parquet");
  }
  char head[kMagicSize];
  file->ReadExactly(0, kMagicSize, head);
  uint8_t tail[kFooterTailSize];
  file->ReadExactly(size - kFooterTailSize, kFooterTailSize, tail);
  if (std::memcmp(tail + 4, kEncryptedMagic, kMagicSize) == 0) {
    SILT_THROW(PARQUET_UNSUPPORTED_FEATURE, {{"path", path}, {"feature", "encrypted footer"}});
  }
  if (std::memcmp(head, kMagic, kMagicSize) != 0 ||
      std::memcmp(tail + 4, kMagic, kMagicSize) != 0) {
    CorruptFile(path, "missing PAR1 magic bytes");
  }
  uint32_t footer_size;
  std::memcpy(&footer_size, tail, 4);
  uint64_t data_end = size - kFooterTailSize;
  if (footer_size == 0 || footer_size > data_end - kMagicSize) {
    CorruptFile(path, "footer length " + std::to_string(footer_size) +
                          " does not fit the file of " + std::to_string(size) + " bytes");
  }
  uint64_t footer_start = data_end - footer_size;
  auto footer = std::make_unique_for_overwrite<uint8_t[]>(footer_size);
  file->ReadExactly(footer_start, footer_size, footer.get());
  FileMetaData metadata;
  ParquetSchema mapping;
  try {
    metadata = DecodeFileMetaData(footer.get(), footer_size);
    mapping = SchemaFromParquet(metadata.schema);
  } catch (const Error& error) {
    RethrowWithLocation(error, path, "footer");
  }
  ValidateMetadata(metadata, mapping, footer_start, path);
  return std::make_unique<FileReaderImpl>(std::move(file), std::move(metadata), std::move(mapping),
                                          footer_start);
}

std::unique_ptr<FileReader> FileReader::Open(io::FileSystem& fs, const std::string& path) {
  return Open(std::shared_ptr<io::RandomAccessFile>(fs.OpenRead(path)));
}

}  // namespace silt::parquet
