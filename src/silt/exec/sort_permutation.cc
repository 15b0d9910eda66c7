#include "silt/exec/sort_permutation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/sort_window.h"

namespace silt::exec {

namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;
// Below this many rows a sort runs on the calling thread only.
constexpr int64_t kParallelSortRows = 1 << 16;
// Radix sorts need this many rows to beat comparison sorts, and give way to them when more than
// this many 11-bit digits of the keys vary.
constexpr int64_t kRadixSortRows = 4096;
constexpr size_t kMaxRadixPasses = 9;
// Sorts with more normalised words than this use the generic comparator.
constexpr int kMaxInlineWords = 4;

bool HasNormalisedForm(TypeId id) {
  switch (id) {
    case TypeId::kNull:
    case TypeId::kBoolean:
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kDayTimeInterval:
    case TypeId::kTimestampNtz:
      return true;
    default:
      return false;
  }
}

int ValueWords(const Vector& column) {
  if (column.type_id() == TypeId::kNull) return 0;
  return column.type_id() == TypeId::kDecimal ? 2 : 1;
}

int KeyWords(const Vector& column) {
  return ValueWords(column) + (column.null_count() > 0 ? 1 : 0);
}

// Maps a double to an unsigned word whose order is Spark's: -0.0 as 0.0, every NaN equal and
// above +Infinity.
uint64_t NormaliseDouble(double value) {
  if (std::isnan(value)) return ~uint64_t{0};
  if (value == 0.0) value = 0.0;
  uint64_t bits = std::bit_cast<uint64_t>(value);
  return (bits & kSignBit) ? ~bits : (bits | kSignBit);
}

uint64_t NormaliseSigned(int64_t value) { return static_cast<uint64_t>(value) ^ kSignBit; }

// Writes the key's words of every row at out[row * stride + first_word ...].
void EncodeKey(const Vector& column, const SortKey& key, int64_t num_rows, uint64_t* out,
               int stride, int first_word) {
  bool has_nulls = column.null_count() > 0;
  int value_word = first_word + (has_nulls ? 1 : 0);
  uint64_t flip = key.ascending ? 0 : ~uint64_t{0};
  auto encode = [&](auto&& word_of) {
    for (int64_t r = 0; r < num_rows; ++r) {
      out[r * stride + value_word] = word_of(r) ^ flip;
    }
  };
  switch (column.type_id()) {
    case TypeId::kNull:
      break;
    case TypeId::kBoolean:
      encode([&](int64_t r) { return uint64_t{column.GetBool(r)}; });
      break;
    case TypeId::kByte: {
      const int8_t* v = column.values<int8_t>();
      encode([&](int64_t r) { return NormaliseSigned(v[r]); });
      break;
    }
    case TypeId::kShort: {
      const int16_t* v = column.values<int16_t>();
      encode([&](int64_t r) { return NormaliseSigned(v[r]); });
      break;
    }
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate: {
      const int32_t* v = column.values<int32_t>();
      encode([&](int64_t r) { return NormaliseSigned(v[r]); });
      break;
    }
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kDayTimeInterval:
    case TypeId::kTimestampNtz: {
      const int64_t* v = column.values<int64_t>();
      encode([&](int64_t r) { return NormaliseSigned(v[r]); });
      break;
    }
    case TypeId::kFloat: {
      const float* v = column.values<float>();
      encode([&](int64_t r) { return NormaliseDouble(v[r]); });
      break;
    }
    case TypeId::kDouble: {
      const double* v = column.values<double>();
      encode([&](int64_t r) { return NormaliseDouble(v[r]); });
      break;
    }
    case TypeId::kDecimal: {
      const Decimal128* v = column.values<Decimal128>();
      for (int64_t r = 0; r < num_rows; ++r) {
        auto bits = static_cast<unsigned __int128>(v[r]);
        out[r * stride + value_word] = (static_cast<uint64_t>(bits >> 64) ^ kSignBit) ^ flip;
        out[r * stride + value_word + 1] = static_cast<uint64_t>(bits) ^ flip;
      }
      break;
    }
    case TypeId::kString:
    case TypeId::kBinary:
      // Only a prefix: the first 8 bytes, big-endian and zero-padded, order strings as their
      // bytes do whenever the prefixes differ; equal prefixes are settled by CompareValues.
      encode([&](int64_t r) {
        std::string_view text = column.GetString(r);
        uint64_t word = 0;
        for (size_t b = 0; b < 8; ++b) {
          word = (word << 8) | (b < text.size() ? static_cast<uint8_t>(text[b]) : 0);
        }
        return word;
      });
      break;
    default:
      SILT_CHECK(false, "key type has no normalised form");
  }
  if (!has_nulls) return;
  // The NULL rank word sorts NULLs before or after every value; NULL rows take the value words
  // of one valid row so that NULLs are peers without widening the words' range (NarrowWords).
  int value_words = ValueWords(column);
  int64_t some_valid = 0;
  while (some_valid < num_rows && column.IsNull(some_valid)) ++some_valid;
  for (int64_t r = 0; r < num_rows; ++r) {
    bool is_null = column.IsNull(r);
    out[r * stride + first_word] = is_null == key.nulls_first ? 0 : 1;
    if (is_null) {
      for (int w = 0; w < value_words; ++w) {
        out[r * stride + value_word + w] =
            some_valid < num_rows ? out[some_valid * stride + value_word + w] : 0;
      }
    }
  }
}

// Sorts `items` with `less`, in parallel chunks merged pairwise when large; or keeps only the
// first `keep` in order.
template <typename T, typename Less>
void SortRange(std::vector<T>& items, Less less, const ExecContext* context, int64_t keep) {
  auto size = static_cast<int64_t>(items.size());
  if (keep < size) {
    std::partial_sort(items.begin(), items.begin() + keep, items.end(), less);
    items.resize(static_cast<size_t>(keep));
    return;
  }
  size_t threads = context ? context->Parallelism() : 1;
  if (threads < 2 || size < kParallelSortRows) {
    std::sort(items.begin(), items.end(), less);
    return;
  }
  size_t chunks = std::min<size_t>(threads, static_cast<size_t>(size / (kParallelSortRows / 2)));
  std::vector<size_t> bounds(chunks + 1);
  for (size_t c = 0; c <= chunks; ++c) bounds[c] = items.size() * c / chunks;
  ThreadPool& pool = context->Pool();
  pool.ParallelFor(
      chunks,
      [&](size_t c) {
        std::sort(items.begin() + static_cast<ptrdiff_t>(bounds[c]),
                  items.begin() + static_cast<ptrdiff_t>(bounds[c + 1]), less);
      },
      threads);
  std::vector<T> scratch(items.size());
  while (bounds.size() > 2) {
    size_t pairs = (bounds.size() - 1) / 2;
    pool.ParallelFor(
        pairs,
        [&](size_t p) {
          auto begin = items.begin();
          std::merge(begin + static_cast<ptrdiff_t>(bounds[2 * p]),
                     begin + static_cast<ptrdiff_t>(bounds[2 * p + 1]),
                     begin + static_cast<ptrdiff_t>(bounds[2 * p + 1]),
                     begin + static_cast<ptrdiff_t>(bounds[2 * p + 2]),
                     scratch.begin() + static_cast<ptrdiff_t>(bounds[2 * p]), less);
        },
        threads);
    if ((bounds.size() - 1) % 2 == 1) {  // an odd last run is carried over unmerged
      std::copy(items.begin() + static_cast<ptrdiff_t>(bounds[bounds.size() - 2]), items.end(),
                scratch.begin() + static_cast<ptrdiff_t>(bounds[bounds.size() - 2]));
    }
    items.swap(scratch);
    std::vector<size_t> merged;
    for (size_t b = 0; b < bounds.size(); b += 2) merged.push_back(bounds[b]);
    if (merged.back() != items.size()) merged.push_back(items.size());
    bounds.swap(merged);
  }
}

// Runs `body(begin, end)` over [0, num_rows) in one range per thread when the input is large.
template <typename Body>
void InRowRanges(int64_t num_rows, const ExecContext* context, Body&& body) {
  size_t threads = context ? std::max<size_t>(1, context->Parallelism()) : 1;
  if (threads < 2 || num_rows < kParallelSortRows) {
    body(int64_t{0}, num_rows);
    return;
  }
  auto parts = static_cast<int64_t>(threads);
  context->Pool().ParallelFor(
      threads,
      [&](size_t t) {
        auto part = static_cast<int64_t>(t);
        body(num_rows * part / parts, num_rows * (part + 1) / parts);
      },
      threads);
}

// Least-significant-digit radix sort of entries by their words (word 0 most significant), 11
// bits per pass, skipping the digits every entry shares (a packed key of 49 varying bits costs 5
// passes). Stable, so ties keep their row order. Each pass splits the entries between `threads`
// workers, each scattering its own slice through its own bucket offsets.
template <typename Entry, int W>
bool RadixSort(std::vector<Entry>& entries, const ExecContext* context) {
  constexpr int kDigitBits = 11;
  constexpr int kBuckets = 1 << kDigitBits;
  constexpr int kDigitsPerWord = (64 + kDigitBits - 1) / kDigitBits;
  constexpr int kDigits = W * kDigitsPerWord;
  size_t size = entries.size();
  size_t threads = context ? std::max<size_t>(1, context->Parallelism()) : 1;
  if (size < static_cast<size_t>(kParallelSortRows)) threads = 1;
  auto slice_begin = [&](size_t t) { return size * t / threads; };
  // Every digit's counts in one read of the entries, a slice per thread.
  std::vector<std::vector<std::array<uint32_t, kBuckets>>> partial(
      threads, std::vector<std::array<uint32_t, kBuckets>>(kDigits));
  auto count_digits = [&](size_t t) {
    auto& counts = partial[t];
    for (auto& digit_counts : counts) digit_counts.fill(0);
    for (size_t i = slice_begin(t); i < slice_begin(t + 1); ++i) {
      for (int w = 0; w < W; ++w) {
        uint64_t word = entries[i].word[w];
        for (int d = 0; d < kDigitsPerWord; ++d) {
          ++counts[w * kDigitsPerWord + d][(word >> (kDigitBits * d)) & (kBuckets - 1)];
        }
      }
    }
  };
  if (threads > 1) {
    context->Pool().ParallelFor(threads, count_digits, threads);
  } else {
    count_digits(0);
  }
  std::vector<std::array<uint32_t, kBuckets>>& histogram = partial[0];
  for (size_t t = 1; t < threads; ++t) {
    for (int d = 0; d < kDigits; ++d) {
      for (int b = 0; b < kBuckets; ++b) histogram[d][b] += partial[t][d][b];
    }
  }
  std::vector<int> digits;  // least significant first
  for (int w = W - 1; w >= 0; --w) {
    for (int d = 0; d < kDigitsPerWord; ++d) {
      const auto& counts = histogram[w * kDigitsPerWord + d];
      if (std::find(counts.begin(), counts.end(), static_cast<uint32_t>(size)) == counts.end()) {
        digits.push_back(w * kDigitsPerWord + d);
      }
    }
  }
  if (digits.size() > kMaxRadixPasses) return false;
  std::vector<Entry> scratch(size);
  std::vector<std::array<uint32_t, kBuckets>> offsets(threads);
  for (int digit : digits) {
    int word = digit / kDigitsPerWord;
    int shift = kDigitBits * (digit % kDigitsPerWord);
    auto count_slice = [&](size_t t) {
      offsets[t].fill(0);
      for (size_t i = slice_begin(t); i < slice_begin(t + 1); ++i)
        ++offsets[t][(entries[i].word[word] >> shift) & (kBuckets - 1)];
    };
    auto scatter_slice = [&](size_t t) {
      std::array<uint32_t, kBuckets>& next = offsets[t];
      for (size_t i = slice_begin(t); i < slice_begin(t + 1); ++i) {
        scratch[next[(entries[i].word[word] >> shift) & (kBuckets - 1)]++] = entries[i];
      }
    };
    if (threads > 1) {
      context->Pool().ParallelFor(threads, count_slice, threads);
    } else {
      count_slice(0);
    }
    uint32_t running = 0;
    for (int bucket = 0; bucket < kBuckets; ++bucket) {
      for (size_t t = 0; t < threads; ++t) {
        uint32_t count = offsets[t][static_cast<size_t>(bucket)];
        offsets[t][static_cast<size_t>(bucket)] = running;
        running += count;
      }
    }
    if (threads > 1) {
      context->Pool().ParallelFor(threads, scatter_slice, threads);
    } else {
      scatter_slice(0);
    }
    entries.swap(scratch);
  }
  return true;
}

template <int W>
std::vector<int64_t> SortInlineWords(const std::vector<uint64_t>& words, int64_t num_rows,
                                     const ExecContext* context, std::optional<int64_t> limit) {
  struct Entry {
    uint64_t word[W];
    uint32_t row;
  };
  std::vector<Entry> entries(static_cast<size_t>(num_rows));
  auto fill = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      Entry& entry = entries[static_cast<size_t>(r)];
      std::memcpy(entry.word, words.data() + r * W, sizeof(entry.word));
      entry.row = static_cast<uint32_t>(r);
    }
  };
  InRowRanges(num_rows, context, fill);
  auto less = [](const Entry& a, const Entry& b) {
    for (int w = 0; w < W; ++w) {
      if (a.word[w] != b.word[w]) return a.word[w] < b.word[w];
    }
    return a.row < b.row;
  };
  int64_t keep = num_rows;
  if (limit.has_value()) keep = std::min(num_rows, std::max<int64_t>(0, *limit));
  bool sorted = false;
  if (keep == num_rows && num_rows >= kRadixSortRows)
    sorted = RadixSort<Entry, W>(entries, context);
  if (!sorted) SortRange(entries, less, context, keep);
  std::vector<int64_t> order(entries.size());
  for (size_t k = 0; k < entries.size(); ++k) order[k] = entries[k].row;
  return order;
}

// Subtracts each word's smallest value across the rows (keeping every word's order, and so the
// rows'), so that small ranges become small numbers: a radix sort then skips their zero digits.
// When the remaining bits of all words fit in one word (a small-range id followed by a
// timestamp, say), packs them, most significant word first, into one word per row, so the sort
// moves and inspects far less.
void NarrowWords(std::vector<uint64_t>& words, int64_t num_rows, int& num_words) {
  std::vector<uint64_t> low(static_cast<size_t>(num_words), ~uint64_t{0});
  std::vector<uint64_t> high(static_cast<size_t>(num_words), 0);
  for (int64_t r = 0; r < num_rows; ++r) {
    const uint64_t* row = words.data() + r * num_words;
    for (int w = 0; w < num_words; ++w) {
      low[static_cast<size_t>(w)] = std::min(low[static_cast<size_t>(w)], row[w]);
      high[static_cast<size_t>(w)] = std::max(high[static_cast<size_t>(w)], row[w]);
    }
  }
  int total_bits = 0;
  std::vector<int> widths(static_cast<size_t>(num_words));
  for (int w = 0; w < num_words; ++w) {
    widths[static_cast<size_t>(w)] =
        std::bit_width(high[static_cast<size_t>(w)] - low[static_cast<size_t>(w)]);
    total_bits += widths[static_cast<size_t>(w)];
  }
  if (total_bits > 64) {
    for (int64_t r = 0; r < num_rows; ++r) {
      uint64_t* row = words.data() + r * num_words;
      for (int w = 0; w < num_words; ++w) row[w] -= low[static_cast<size_t>(w)];
    }
    return;
  }
  std::vector<uint64_t> packed(static_cast<size_t>(num_rows));
  for (int64_t r = 0; r < num_rows; ++r) {
    const uint64_t* row = words.data() + r * num_words;
    uint64_t value = 0;
    for (int w = 0; w < num_words; ++w) {
      int width = widths[static_cast<size_t>(w)];
      if (width == 0) continue;
      uint64_t field = row[w] - low[static_cast<size_t>(w)];
      value = width == 64 ? field : (value << width) | field;
    }
    packed[static_cast<size_t>(r)] = value;
  }
  words.swap(packed);
  num_words = 1;
}

}  // namespace

std::vector<int64_t> SortPermutation(const std::vector<VectorPtr>& columns, int64_t num_rows,
                                     const std::vector<SortKey>& keys, const ExecContext* context,
                                     std::optional<int64_t> limit) {
  SILT_CHECK(num_rows < (int64_t{1} << 32) - 1, "sort input exceeds 2^32 rows");
  if (limit) limit = std::max<int64_t>(0, *limit);
  // Keys up to the first one without a normalised form become words; the rest are compared
  // value by value when the words tie.
  // A string key there contributes its prefix as a word and stays among the compared keys.
  size_t normalised_keys = 0;
  size_t encoded_keys = 0;
  int num_words = 0;
  for (const SortKey& key : keys) {
    const Vector& column = *columns[static_cast<size_t>(key.column)];
    TypeId id = column.type_id();
    if (HasNormalisedForm(id)) {
      ++normalised_keys;
      ++encoded_keys;
      num_words += KeyWords(column);
      continue;
    }
    if (id == TypeId::kString || id == TypeId::kBinary) {
      ++encoded_keys;
      num_words += KeyWords(column);
    }
    break;
  }
  std::vector<uint64_t> words(static_cast<size_t>(num_rows * num_words));
  int first_word = 0;
  for (size_t k = 0; k < encoded_keys; ++k) {
    const Vector& column = *columns[static_cast<size_t>(keys[k].column)];
    EncodeKey(column, keys[k], num_rows, words.data(), num_words, first_word);
    first_word += KeyWords(column);
  }
  if (normalised_keys == keys.size() && num_rows > 1) NarrowWords(words, num_rows, num_words);
  if (normalised_keys == keys.size()) {
    switch (num_words) {
      case 0: {
        std::vector<int64_t> order(static_cast<size_t>(num_rows));
        for (int64_t r = 0; r < num_rows; ++r) order[static_cast<size_t>(r)] = r;
        if (limit && *limit < num_rows) order.resize(static_cast<size_t>(*limit));
        return order;
      }
      case 1:
        return SortInlineWords<1>(words, num_rows, context, limit);
      case 2:
        return SortInlineWords<2>(words, num_rows, context, limit);
      case 3:
        return SortInlineWords<3>(words, num_rows, context, limit);
      case 4:
        return SortInlineWords<kMaxInlineWords>(words, num_rows, context, limit);
      default:
        break;
    }
  }
  std::vector<SortKey> remaining(keys.begin() + static_cast<ptrdiff_t>(normalised_keys),
                                 keys.end());
  for (const SortKey& key : remaining) {
    CheckOrderable(*columns[static_cast<size_t>(key.column)]->type(), "sort");
  }
  std::vector<uint32_t> rows(static_cast<size_t>(num_rows));
  for (int64_t r = 0; r < num_rows; ++r) rows[static_cast<size_t>(r)] = static_cast<uint32_t>(r);
  const uint64_t* word_data = words.data();
  auto less = [&](uint32_t a, uint32_t b) {
    const uint64_t* wa = word_data + static_cast<int64_t>(a) * num_words;
    const uint64_t* wb = word_data + static_cast<int64_t>(b) * num_words;
    for (int w = 0; w < num_words; ++w) {
      if (wa[w] != wb[w]) return wa[w] < wb[w];
    }
    int c = CompareRows(columns, a, columns, b, remaining);
    return c != 0 ? c < 0 : a < b;
  };
  int64_t keep = num_rows;
  if (limit.has_value()) keep = std::min(num_rows, std::max<int64_t>(0, *limit));
  SortRange(rows, less, context, keep);
  return std::vector<int64_t>(rows.begin(), rows.end());
}

Batch ConcatenateInParallel(const std::vector<Batch>& batches, ExecContext& context) {
  SILT_CHECK(!batches.empty(), "no batches to concatenate");
  if (batches.size() == 1) return batches.front();
  int64_t num_rows = 0;
  for (const Batch& batch : batches) num_rows += batch.num_rows();
  const SchemaPtr& schema = batches.front().schema();
  std::vector<VectorPtr> columns(schema->num_fields());
  context.Pool().ParallelFor(
      columns.size(),
      [&](size_t c) {
        VectorBuilder builder(schema->field(c).type, num_rows);
        for (const Batch& batch : batches)
          builder.AppendRange(*batch.column(c), 0, batch.num_rows());
        columns[c] = builder.Finish();
      },
      context.Parallelism());
  return Batch(schema, std::move(columns), num_rows);
}

std::vector<PieceRow> LocateRows(const std::vector<Batch>& batches, const int64_t* rows,
                                 int64_t count, const ExecContext* context) {
  std::vector<int64_t> starts;  // first row number of each batch, then the total
  int64_t total = 0;
  for (const Batch& batch : batches) {
    starts.push_back(total);
    total += batch.num_rows();
  }
  starts.push_back(total);
  std::vector<PieceRow> located(static_cast<size_t>(count));
  InRowRanges(count, context, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      int64_t row = rows[k];
      SILT_CHECK(row >= 0 && row < total, "row number outside the batches");
      auto piece = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), row) -
                                       starts.begin() - 1);
      located[static_cast<size_t>(k)] =
          PieceRow{static_cast<uint32_t>(piece), static_cast<uint32_t>(row - starts[piece])};
    }
  });
  return located;
}

VectorPtr GatherPieceRows(const std::vector<Batch>& batches, size_t column, const PieceRow* rows,
                          int64_t count) {
  SILT_CHECK(!batches.empty(), "no batches to gather from");
  if (batches.size() == 1) {
    std::vector<int64_t> single(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k) single[static_cast<size_t>(k)] = rows[k].row;
    return TakeRows(*batches[0].column(column), single.data(), count);
  }
  std::vector<const Vector*> pieces;
  bool any_null = false;
  for (const Batch& batch : batches) {
    pieces.push_back(batch.column(column).get());
    any_null = any_null || pieces.back()->null_count() > 0;
  }
  const DataTypePtr& type = pieces[0]->type();
  if (type->id() == TypeId::kNull) return Vector::MakeAllNull(type, count);
  BufferPtr validity;
  if (any_null) {
    validity = Buffer::Allocate(static_cast<size_t>((count + 7) / 8), true);
    uint8_t* bits = validity->data();
    for (int64_t k = 0; k < count; ++k) {
      if (pieces[rows[k].piece]->IsValid(rows[k].row))
        bits[k >> 3] |= static_cast<uint8_t>(1u << (k & 7));
    }
  }
  auto gather_fixed = [&](auto type_tag) {
    using T = decltype(type_tag);
    std::vector<const T*> bases;
    for (const Vector* piece : pieces) bases.push_back(piece->values<T>());
    BufferPtr values = Buffer::Allocate(static_cast<size_t>(count) * sizeof(T));
    T* out = values->as<T>();
    for (int64_t k = 0; k < count; ++k) out[k] = bases[rows[k].piece][rows[k].row];
    return Vector::Make(type, count, {validity, values}, {}, -1);
  };
  switch (type->id()) {
    case TypeId::kByte:
      return gather_fixed(int8_t{});
    case TypeId::kShort:
      return gather_fixed(int16_t{});
    case TypeId::kInteger:
    case TypeId::kYearMonthInterval:
    case TypeId::kDate:
      return gather_fixed(int32_t{});
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kDayTimeInterval:
    case TypeId::kTimestampNtz:
      return gather_fixed(int64_t{});
    case TypeId::kFloat:
      return gather_fixed(float{});
    case TypeId::kDouble:
      return gather_fixed(double{});
    case TypeId::kDecimal:
      return gather_fixed(Decimal128{});
    case TypeId::kString:
    case TypeId::kBinary: {
      BufferPtr offsets = Buffer::Allocate(static_cast<size_t>(count + 1) * sizeof(int32_t));
      int32_t* out_offsets = offsets->as<int32_t>();
      int64_t total = 0;
      out_offsets[0] = 0;
      for (int64_t k = 0; k < count; ++k) {
        const Vector& piece = *pieces[rows[k].piece];
        if (piece.IsValid(rows[k].row))
          total += static_cast<int64_t>(piece.GetString(rows[k].row).size());
        SILT_USER_CHECK(total <= std::numeric_limits<int32_t>::max(), VECTOR_CAPACITY_EXCEEDED,
                        {{"type", type->ToString()}});
        out_offsets[k + 1] = static_cast<int32_t>(total);
      }
      BufferPtr data = Buffer::Allocate(static_cast<size_t>(total));
      char* out = reinterpret_cast<char*>(data->data());
      for (int64_t k = 0; k < count; ++k) {
        int32_t length = out_offsets[k + 1] - out_offsets[k];
        if (length > 0) {
          std::memcpy(out + out_offsets[k], pieces[rows[k].piece]->GetString(rows[k].row).data(),
                      static_cast<size_t>(length));
        }
      }
      return Vector::Make(type, count, {validity, offsets, data}, {}, -1);
    }
    default: {
      VectorBuilder builder(type, count);
      for (int64_t k = 0; k < count; ++k) builder.AppendFrom(*pieces[rows[k].piece], rows[k].row);
      return builder.Finish();
    }
  }
}

std::vector<VectorPtr> ConcatenateColumns(const std::vector<Batch>& batches,
                                          const std::vector<int>& columns, ExecContext& context) {
  int64_t num_rows = 0;
  for (const Batch& batch : batches) num_rows += batch.num_rows();
  std::vector<VectorPtr> out(columns.size());
  auto concatenate = [&](size_t i) {
    auto column = static_cast<size_t>(columns[i]);
    if (batches.size() == 1) {
      out[i] = batches[0].column(column);
      return;
    }
    VectorBuilder builder(batches[0].column(column)->type(), num_rows);
    for (const Batch& batch : batches)
      builder.AppendRange(*batch.column(column), 0, batch.num_rows());
    out[i] = builder.Finish();
  };
  context.Pool().ParallelFor(out.size(), concatenate, context.Parallelism());
  return out;
}

}  // namespace silt::exec
