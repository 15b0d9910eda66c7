#include "silt/parquet/column_writer.h"

#include <algorithm>
#include <climits>
#include <type_traits>

#include "silt/base/check.h"
#include "silt/parquet/codec.h"
#include "silt/parquet/encoding.h"
#include "silt/parquet/statistics.h"

namespace silt::parquet {
namespace {

// Levels are produced in mini-batches of about this many slots; after each one the writer
// decides whether to cut a page or give up on the dictionary (as parquet-mr and Arrow do).
constexpr int64_t kMiniBatchLevels = 4096;

// Before any page uses the dictionary, a chunk whose dictionary already holds this fraction of
// its size limit, with nearly every value distinct (kDistinctPercent), gives up on it: unique
// keys and timestamps would otherwise fill the whole dictionary, to be dropped when full
// (parquet-mr also falls back after its first page when the dictionary does not pay).
constexpr int64_t kDictionaryProbeFraction = 8;
constexpr size_t kDistinctPercent = 90;

std::string JoinPath(const std::vector<std::string>& path) {
  std::string joined;
  for (const std::string& part : path) {
    if (!joined.empty()) joined += '.';
    joined += part;
  }
  return joined;
}

[[noreturn]] void ThrowUnexpectedNull(const WriterLeafColumn& leaf) {
  SILT_THROW(PARQUET_WRITE_ERROR,
             {{"path", "<output>"},
              {"message", "NULL value in non-nullable column " + JoinPath(leaf.path)}});
}

// Reads row `i` of a leaf vector as the physical value T; `Source` is the vector's storage type.
template <typename T, typename Source>
struct FixedExtractor {
  T operator()(const Vector& vector, int64_t i) const {
    return static_cast<T>(vector.values<Source>()[i]);
  }
  void Bulk(const Vector& vector, int64_t count, T* out) const {
    const Source* source = vector.values<Source>();
    if constexpr (std::is_same_v<T, Source>) {
      if (count > 0) std::memcpy(out, source, static_cast<size_t>(count) * sizeof(T));
    } else {
      for (int64_t i = 0; i < count; ++i) out[i] = static_cast<T>(source[i]);
    }
  }
};

struct BooleanExtractor {
  uint8_t operator()(const Vector& vector, int64_t i) const { return vector.GetBool(i) ? 1 : 0; }
  void Bulk(const Vector& vector, int64_t count, uint8_t* out) const {
    for (int64_t i = 0; i < count; ++i) out[i] = vector.GetBool(i) ? 1 : 0;
  }
};

struct StringExtractor {
  std::string_view operator()(const Vector& vector, int64_t i) const { return vector.GetString(i); }
  void Bulk(const Vector& vector, int64_t count, std::string_view* out) const {
    if (count == 0) return;
    const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
    const char* data = reinterpret_cast<const char*>(vector.buffer(2)->data());
    for (int64_t i = 0; i < count; ++i) {
      out[i] =
          std::string_view(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
    }
  }
};

// A leaf of the void type: never called, as every value is NULL.
struct NullExtractor {
  int32_t operator()(const Vector&, int64_t) const { return 0; }
  void Bulk(const Vector&, int64_t, int32_t*) const {}
};

// Stripes the rows of the top-level vectors into levels and leaf values (Dremel).
template <typename T, typename Extract>
class LevelCollector {
 public:
  LevelCollector(const WriterLeafColumn& leaf, Extract extract, LeafLevels* levels,
                 std::vector<T>* values)
      : leaf_(leaf), extract_(extract), levels_(levels), values_(values) {}

  void AddPiece(const Vector& top) {
    if (leaf_.steps.size() == 1) {
      AddFlatPiece(top);
      return;
    }
    for (int64_t i = 0; i < top.length(); ++i) Walk(0, top, i, 0, 0);
  }

 private:
  void Emit(int16_t definition, int16_t repetition) {
    if (leaf_.max_definition_level > 0) levels_->definition_levels.push_back(definition);
    if (leaf_.max_repetition_level > 0) levels_->repetition_levels.push_back(repetition);
    ++levels_->num_levels;
  }

  void AddFlatPiece(const Vector& vector) {
    int64_t length = vector.length();
    bool is_null_type = vector.type_id() == TypeId::kNull;
    bool nullable = leaf_.max_definition_level > 0;
    if (is_null_type || vector.null_count() != 0) {
      if (!nullable) ThrowUnexpectedNull(leaf_);
      levels_->definition_levels.reserve(levels_->definition_levels.size() + length);
      for (int64_t i = 0; i < length; ++i) {
        bool valid = vector.IsValid(i);
        levels_->definition_levels.push_back(valid ? 1 : 0);
        if (valid) values_->push_back(extract_(vector, i));
      }
    } else {
      if (nullable)
        levels_->definition_levels.resize(levels_->definition_levels.size() + length, 1);
      size_t old_size = values_->size();
      values_->resize(old_size + static_cast<size_t>(length));
      extract_.Bulk(vector, length, values_->data() + old_size);
    }
    levels_->num_levels += length;
  }

  void Walk(size_t step_index, const Vector& vector, int64_t i, int16_t definition,
            int16_t repetition) {
    const LevelStep& step = leaf_.steps[step_index];
    if (vector.IsNull(i)) {
      if (!step.nullable) ThrowUnexpectedNull(leaf_);
      Emit(definition, repetition);
      return;
    }
    auto present = static_cast<int16_t>(definition + (step.nullable ? 1 : 0));
    switch (step.kind) {
      case LevelStep::Kind::kLeaf:
        Emit(present, repetition);
        values_->push_back(extract_(vector, i));
        return;
      case LevelStep::Kind::kStruct:
        Walk(step_index + 1, *vector.child(static_cast<size_t>(step.child)), vector.offset() + i,
             present, repetition);
        return;
      case LevelStep::Kind::kList:
      case LevelStep::Kind::kMap: {
        int32_t length = vector.ListLength(i);
        if (length == 0) {
          Emit(present, repetition);
          return;
        }
        int32_t start = vector.ListStart(i);
        const Vector* child = vector.child(0).get();
        int64_t base = 0;
        if (step.kind == LevelStep::Kind::kMap) {
          // The entries struct is never NULL; its key/value children are read at its offset.
          base = child->offset();
          child = child->child(static_cast<size_t>(step.child)).get();
        }
        auto element_definition = static_cast<int16_t>(present + 1);
        for (int32_t j = 0; j < length; ++j) {
          Walk(step_index + 1, *child, base + start + j, element_definition,
               j == 0 ? repetition : step.repetition_level);
        }
        return;
      }
    }
  }

  const WriterLeafColumn& leaf_;
  Extract extract_;
  LeafLevels* levels_;
  std::vector<T>* values_;
};

template <typename T, typename Extract>
void Collect(const WriterLeafColumn& leaf, const std::vector<VectorPtr>& pieces, Extract extract,
             LeafLevels* levels, std::vector<T>* values) {
  LevelCollector<T, Extract> collector(leaf, extract, levels, values);
  for (const VectorPtr& piece : pieces) collector.AddPiece(*piece);
}

// ---- value encoding per physical representation ----

template <typename T>
size_t PlainSize(const T* values, size_t count, int type_length) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += 4 + values[i].size();
    return total;
  } else if constexpr (std::is_same_v<T, Int128>) {
    return count * static_cast<size_t>(type_length);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    return (count + 7) / 8;
  } else {
    return count * sizeof(T);
  }
}

template <typename T>
void EncodePlain(const T* values, size_t count, int type_length, std::string* out) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    EncodePlainByteArray(values, count, out);
  } else if constexpr (std::is_same_v<T, Int128>) {
    EncodePlainDecimal(values, count, type_length, out);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    EncodePlainBoolean(values, count, out);
  } else {
    EncodePlainFixed(values, count, out);
  }
}

template <typename T>
void UpdateStatistics(StatisticsBuilder& statistics, const T* values, size_t count) {
  if constexpr (std::is_same_v<T, std::string_view>) {
    statistics.UpdateByteArray(values, count);
  } else if constexpr (std::is_same_v<T, Int128>) {
    statistics.UpdateDecimal(values, count);
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    statistics.UpdateBoolean(values, count);
  } else if constexpr (std::is_same_v<T, int32_t>) {
    statistics.UpdateInt32(values, count);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    statistics.UpdateInt64(values, count);
  } else if constexpr (std::is_same_v<T, float>) {
    statistics.UpdateFloat(values, count);
  } else {
    statistics.UpdateDouble(values, count);
  }
}

// Dictionary encoding does not apply to booleans (their PLAIN form is already one bit).
template <typename T>
constexpr bool kSupportsDictionary = !std::is_same_v<T, uint8_t>;

// Cuts the leaf's levels and values into pages and encodes them.
template <typename T>
class ChunkEncoder {
 public:
  ChunkEncoder(const WriterLeafColumn& leaf, const ColumnWriterOptions& options,
               const LeafLevels& levels, const T* values, size_t num_values,
               ColumnWriterScratch* scratch)
      : leaf_(leaf),
        options_(options),
        levels_(levels),
        indices_(scratch->indices),
        page_body_(scratch->page_body),
        compressed_(scratch->compressed),
        values_(values),
        num_values_(num_values),
        statistics_(leaf.statistics_kind, leaf.type_length, leaf.utf8,
                    options.statistics_truncate_bytes) {}

  void Encode(EncodedColumnChunk& chunk) {
    chunk.dictionary_page.clear();
    chunk.data_pages.clear();
    chunk.metadata = ColumnMetaData();
    std::optional<DictionaryBuilder<DictionaryKey>> dictionary;
    bool use_dictionary = false;
    if constexpr (kSupportsDictionary<T>) {
      use_dictionary = options_.dictionary && num_values_ != 0;
      if (use_dictionary) dictionary.emplace(leaf_.type_length);
    }
    bool wrote_dictionary_pages = false, wrote_plain_pages = false;
    std::vector<uint32_t>& indices = indices_;

    int64_t level_position = 0;
    size_t value_position = 0;
    const int16_t* definition =
        levels_.definition_levels.empty() ? nullptr : levels_.definition_levels.data();
    const int16_t* repetition =
        levels_.repetition_levels.empty() ? nullptr : levels_.repetition_levels.data();
    // A chunk of no rows still gets one (empty) page so that data_page_offset is meaningful.
    do {
      int64_t page_level_begin = level_position;
      size_t page_value_begin = value_position;
      size_t estimated_bytes = 0;
      indices.clear();
      bool dictionary_full = false;
      while (level_position < levels_.num_levels) {
        int64_t end = std::min(levels_.num_levels, level_position + kMiniBatchLevels);
        // Pages start at record boundaries (repetition level 0).
        if (repetition != nullptr) {
          while (end < levels_.num_levels && repetition[end] != 0) ++end;
        }
        size_t count = 0;
        if (definition != nullptr) {
          for (int64_t i = level_position; i < end; ++i) {
            count += definition[i] == leaf_.max_definition_level;
          }
        } else {
          count = static_cast<size_t>(end - level_position);
        }
        const T* batch = values_ + value_position;
        estimated_bytes += PlainSize(batch, count, leaf_.type_length);
        if constexpr (kSupportsDictionary<T>) {
          if (use_dictionary) {
            size_t old_size = indices.size();
            indices.resize(old_size + count);
            dictionary->InsertAll(reinterpret_cast<const DictionaryKey*>(batch), count,
                                  indices.data() + old_size);
            const auto dictionary_bytes = static_cast<int64_t>(dictionary->plain_bytes());
            dictionary_full = dictionary_bytes > options_.dictionary_page_bytes;
            if (!dictionary_full && !wrote_dictionary_pages &&
                dictionary_bytes * kDictionaryProbeFraction >= options_.dictionary_page_bytes &&
                dictionary->size() * 100 >= indices.size() * kDistinctPercent) {
              // This page is then written PLAIN, from its first value.
              use_dictionary = false;
              indices.clear();
            }
          }
        }
        level_position = end;
        value_position += count;
        if (dictionary_full || static_cast<int64_t>(estimated_bytes) >= options_.page_bytes) {
          break;
        }
      }
      int64_t page_levels = level_position - page_level_begin;
      size_t page_values = value_position - page_value_begin;
      page_body_.clear();
      if (repetition != nullptr) {
        EncodeLevelsV1(repetition + page_level_begin, static_cast<size_t>(page_levels),
                       leaf_.max_repetition_level, &page_body_);
      }
      if (definition != nullptr) {
        EncodeLevelsV1(definition + page_level_begin, static_cast<size_t>(page_levels),
                       leaf_.max_definition_level, &page_body_);
      }
      Encoding encoding = Encoding::kPlain;
      if (use_dictionary) {
        if constexpr (kSupportsDictionary<T>) {
          EncodeDictionaryIndices(indices.data(), indices.size(), dictionary->size(), &page_body_);
        }
        encoding = Encoding::kRleDictionary;
        wrote_dictionary_pages = true;
        // Later pages are PLAIN once the dictionary outgrew its limit.
        if (dictionary_full) use_dictionary = false;
      } else {
        EncodePlain(values_ + page_value_begin, page_values, leaf_.type_length, &page_body_);
        UpdateStatistics(statistics_, values_ + page_value_begin, page_values);
        wrote_plain_pages = true;
      }
      AppendDataPage(page_levels, encoding, &chunk);
    } while (level_position < levels_.num_levels);

    if (wrote_dictionary_pages) {
      if constexpr (kSupportsDictionary<T>) {
        AppendDictionaryPage(*dictionary, &chunk);
        // Every dictionary entry is a value of this chunk, so the entries' min/max are the
        // dictionary-encoded values' min/max, at a fraction of the comparisons.
        std::vector<T> entries(dictionary->size());
        for (size_t i = 0; i < entries.size(); ++i) {
          entries[i] = static_cast<T>(dictionary->value(i));
        }
        UpdateStatistics(statistics_, entries.data(), entries.size());
      }
    }

    ColumnMetaData& metadata = chunk.metadata;
    metadata.type = leaf_.physical_type;
    if (wrote_dictionary_pages) metadata.encodings.push_back(Encoding::kRleDictionary);
    if (wrote_plain_pages || wrote_dictionary_pages) metadata.encodings.push_back(Encoding::kPlain);
    if (leaf_.max_definition_level > 0 || leaf_.max_repetition_level > 0) {
      metadata.encodings.push_back(Encoding::kRle);
    }
    metadata.path_in_schema = leaf_.path;
    metadata.codec = options_.codec;
    metadata.num_values = levels_.num_levels;
    metadata.total_uncompressed_size = total_uncompressed_;
    metadata.total_compressed_size = static_cast<int64_t>(chunk.size());
    metadata.data_page_offset = static_cast<int64_t>(chunk.dictionary_page.size());
    if (wrote_dictionary_pages) metadata.dictionary_page_offset = 0;

    statistics_.AddNulls(levels_.num_levels - static_cast<int64_t>(num_values_));
    metadata.statistics = statistics_.Finish();
  }

 private:
  // The dictionary key of T: the value itself (booleans never get here).
  using DictionaryKey = std::conditional_t<std::is_same_v<T, uint8_t>, int32_t, T>;

  // Compresses page_body_ (or not) and appends header + payload to `out`.
  void AppendPage(PageHeader header, std::string* out) {
    SILT_USER_CHECK(page_body_.size() <= static_cast<size_t>(INT32_MAX), PARQUET_WRITE_ERROR,
                    {{"path", "<output>"},
                     {"message", "a page of column " + JoinPath(leaf_.path) +
                                     " exceeds 2 GiB; lower the page size"}});
    const std::string* payload = &page_body_;
    if (options_.codec != CompressionCodec::kUncompressed) {
      Compress(options_.codec, reinterpret_cast<const uint8_t*>(page_body_.data()),
               page_body_.size(), &compressed_, options_.compression_level);
      payload = &compressed_;
    }
    header.uncompressed_page_size = static_cast<int32_t>(page_body_.size());
    header.compressed_page_size = static_cast<int32_t>(payload->size());
    size_t start = out->size();
    EncodePageHeader(header, out);
    total_uncompressed_ += static_cast<int64_t>(out->size() - start + page_body_.size());
    out->append(*payload);
  }

  void AppendDataPage(int64_t num_levels, Encoding encoding, EncodedColumnChunk* chunk) {
    PageHeader header;
    header.type = PageType::kDataPage;
    DataPageHeader& data = header.data_page_header.emplace();
    data.num_values = static_cast<int32_t>(num_levels);
    data.encoding = encoding;
    data.definition_level_encoding = Encoding::kRle;
    data.repetition_level_encoding = Encoding::kRle;
    AppendPage(std::move(header), &chunk->data_pages);
  }

  template <typename Dictionary>
  void AppendDictionaryPage(const Dictionary& dictionary, EncodedColumnChunk* chunk) {
    page_body_ = dictionary.plain();
    PageHeader header;
    header.type = PageType::kDictionaryPage;
    DictionaryPageHeader& page = header.dictionary_page_header.emplace();
    page.num_values = static_cast<int32_t>(dictionary.size());
    page.encoding = Encoding::kPlain;
    AppendPage(std::move(header), &chunk->dictionary_page);
  }

  const WriterLeafColumn& leaf_;
  const ColumnWriterOptions& options_;
  const LeafLevels& levels_;
  std::vector<uint32_t>& indices_;
  std::string& page_body_;
  std::string& compressed_;
  const T* values_;
  size_t num_values_;
  StatisticsBuilder statistics_;
  int64_t total_uncompressed_ = 0;
};

template <typename T>
std::vector<T>& ScratchValues(ColumnWriterScratch* scratch) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return scratch->booleans;
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return scratch->int32_values;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return scratch->int64_values;
  } else if constexpr (std::is_same_v<T, float>) {
    return scratch->float_values;
  } else if constexpr (std::is_same_v<T, double>) {
    return scratch->double_values;
  } else if constexpr (std::is_same_v<T, Int128>) {
    return scratch->decimal_values;
  } else {
    return scratch->byte_array_values;
  }
}

template <typename T, typename Extract>
void CollectAndEncode(const WriterLeafColumn& leaf, const std::vector<VectorPtr>& pieces,
                      const ColumnWriterOptions& options, Extract extract,
                      ColumnWriterScratch* scratch, EncodedColumnChunk* chunk) {
  LeafLevels& levels = scratch->levels;
  levels.definition_levels.clear();
  levels.repetition_levels.clear();
  levels.num_levels = 0;
  // A flat column without NULLs in one piece, stored as the physical type: encode straight from
  // the vector's memory instead of copying its values.
  if constexpr (std::is_same_v<Extract, FixedExtractor<T, T>>) {
    if (leaf.steps.size() == 1 && pieces.size() == 1 && pieces[0]->null_count() == 0 &&
        pieces[0]->type_id() != TypeId::kNull) {
      const Vector& vector = *pieces[0];
      levels.num_levels = vector.length();
      if (leaf.max_definition_level > 0) {
        levels.definition_levels.assign(static_cast<size_t>(vector.length()), 1);
      }
      ChunkEncoder<T>(leaf, options, levels, vector.values<T>(),
                      static_cast<size_t>(vector.length()), scratch)
          .Encode(*chunk);
      return;
    }
  }
  std::vector<T>& values = ScratchValues<T>(scratch);
  values.clear();
  Collect<T>(leaf, pieces, extract, &levels, &values);
  ChunkEncoder<T>(leaf, options, levels, values.data(), values.size(), scratch).Encode(*chunk);
  if constexpr (std::is_same_v<T, std::string_view>) {
    values.clear();  // the views must not outlive the vectors they point into
  }
}

}  // namespace

LeafLevels ComputeLeafLevels(const WriterLeafColumn& leaf, const std::vector<VectorPtr>& pieces) {
  // Levels do not depend on the value type; collect values as strings only when cheap to view.
  LeafLevels levels;
  struct NoValue {
    int32_t operator()(const Vector&, int64_t) const { return 0; }
    void Bulk(const Vector&, int64_t, int32_t*) const {}
  };
  std::vector<int32_t> ignored;
  Collect<int32_t>(leaf, pieces, NoValue{}, &levels, &ignored);
  return levels;
}

void WriteColumnChunk(const WriterLeafColumn& leaf, const std::vector<VectorPtr>& pieces,
                      const ColumnWriterOptions& options, ColumnWriterScratch* scratch,
                      EncodedColumnChunk* chunk) {
  switch (leaf.type->id()) {
    case TypeId::kNull:
      return CollectAndEncode<int32_t>(leaf, pieces, options, NullExtractor{}, scratch, chunk);
    case TypeId::kBoolean:
      return CollectAndEncode<uint8_t>(leaf, pieces, options, BooleanExtractor{}, scratch, chunk);
    case TypeId::kByte:
      return CollectAndEncode<int32_t>(leaf, pieces, options, FixedExtractor<int32_t, int8_t>{},
                                       scratch, chunk);
    case TypeId::kShort:
      return CollectAndEncode<int32_t>(leaf, pieces, options, FixedExtractor<int32_t, int16_t>{},
                                       scratch, chunk);
    case TypeId::kInteger:
    case TypeId::kDate:
      return CollectAndEncode<int32_t>(leaf, pieces, options, FixedExtractor<int32_t, int32_t>{},
                                       scratch, chunk);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return CollectAndEncode<int64_t>(leaf, pieces, options, FixedExtractor<int64_t, int64_t>{},
                                       scratch, chunk);
    case TypeId::kFloat:
      return CollectAndEncode<float>(leaf, pieces, options, FixedExtractor<float, float>{}, scratch,
                                     chunk);
    case TypeId::kDouble:
      return CollectAndEncode<double>(leaf, pieces, options, FixedExtractor<double, double>{},
                                      scratch, chunk);
    case TypeId::kDecimal:
      switch (leaf.physical_type) {
        case PhysicalType::kInt32:
          return CollectAndEncode<int32_t>(leaf, pieces, options, FixedExtractor<int32_t, Int128>{},
                                           scratch, chunk);
        case PhysicalType::kInt64:
          return CollectAndEncode<int64_t>(leaf, pieces, options, FixedExtractor<int64_t, Int128>{},
                                           scratch, chunk);
        default:
          return CollectAndEncode<Int128>(leaf, pieces, options, FixedExtractor<Int128, Int128>{},
                                          scratch, chunk);
      }
    case TypeId::kString:
    case TypeId::kBinary:
      return CollectAndEncode<std::string_view>(leaf, pieces, options, StringExtractor{}, scratch,
                                                chunk);
    default:
      SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", leaf.type->ToString()}});
  }
}

EncodedColumnChunk WriteColumnChunk(const WriterLeafColumn& leaf,
                                    const std::vector<VectorPtr>& pieces,
                                    const ColumnWriterOptions& options) {
  ColumnWriterScratch scratch;
  EncodedColumnChunk chunk;
  WriteColumnChunk(leaf, pieces, options, &scratch, &chunk);
  return chunk;
}

}  // namespace silt::parquet
