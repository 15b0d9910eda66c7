#include "silt/exec/spill_file.h"

#include <cstring>

#include "silt/base/check.h"
#include "silt/exec/operator.h"
#include "silt/io/file_system.h"

namespace silt::exec {

namespace {

// Encoded blocks are written once this many bytes are pending: operators that partition keep
// a file per partition open (16 and more), whose buffers the memory limit does not count, so
// they stay small.
constexpr size_t kWriteChunkBytes = size_t{256} << 10;

template <typename T>
void Put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Whether `buffer` is well past the `needed` bytes: then it holds other rows too.
bool LargerThanNeeded(const BufferPtr& buffer, int64_t needed) {
  return buffer != nullptr &&
         static_cast<int64_t>(buffer->size()) > needed + needed / 4 + int64_t{4096};
}

// Whether `vector`'s buffers hold rows besides its own: a slice of a larger vector (a scan
// returns a row group's values as slices of one set of buffers, the first starting at 0), whose
// buffers would otherwise be written whole.
bool HoldsOtherRows(const Vector& vector) {
  if (vector.offset() != 0) return true;
  const int64_t rows = vector.length();
  const std::vector<BufferPtr>& buffers = vector.buffers();
  if (!buffers.empty() && LargerThanNeeded(buffers[0], (rows + 7) / 8)) return true;
  if (buffers.size() < 2 || buffers[1] == nullptr) return false;
  const DataType& type = *vector.type();
  if (const int width = type.FixedWidth(); width > 0) {
    return LargerThanNeeded(buffers[1], rows * width);
  }
  switch (type.id()) {
    case TypeId::kBoolean:
      return LargerThanNeeded(buffers[1], (rows + 7) / 8);
    case TypeId::kString:
    case TypeId::kBinary:
      return LargerThanNeeded(buffers[1], (rows + 1) * 4) ||
             (buffers.size() > 2 && LargerThanNeeded(buffers[2], buffers[1]->as<int32_t>()[rows]));
    case TypeId::kList:
    case TypeId::kMap:
      return LargerThanNeeded(buffers[1], (rows + 1) * 4) ||
             (!vector.children().empty() &&
              vector.child(0)->length() > buffers[1]->as<int32_t>()[rows]);
    default:
      return false;
  }
}

// A vector whose logical start is 0 and whose buffers hold its rows only, so they can be written
// as they are.
VectorPtr StartingAtZero(const VectorPtr& vector) {
  if (!HoldsOtherRows(*vector)) return vector;
  VectorBuilder builder(vector->type(), vector->length());
  builder.AppendRange(*vector, 0, vector->length());
  return builder.Finish();
}

void EncodeVector(const Vector& vector, std::string& out) {
  Put<int64_t>(out, vector.length());
  Put<int64_t>(out, vector.null_count());
  Put<uint32_t>(out, static_cast<uint32_t>(vector.buffers().size()));
  for (const BufferPtr& buffer : vector.buffers()) {
    if (!buffer) {
      Put<int64_t>(out, -1);
      continue;
    }
    Put<int64_t>(out, static_cast<int64_t>(buffer->size()));
    out.append(reinterpret_cast<const char*>(buffer->data()), buffer->size());
  }
  Put<uint32_t>(out, static_cast<uint32_t>(vector.children().size()));
  for (const VectorPtr& child : vector.children()) EncodeVector(*StartingAtZero(child), out);
}

// Reads what EncodeVector wrote from a block held in memory.
class BlockReader {
 public:
  BlockReader(const std::string& block, const std::string& path) : block_(block), path_(path) {}

  template <typename T>
  T Get() {
    T value;
    Copy(&value, sizeof(T));
    return value;
  }
  void Copy(void* out, size_t length) {
    if (length > block_.size() - position_) {
      SILT_THROW(IO_ERROR, {{"path", path_}, {"message", "spill file block ends early"}});
    }
    std::memcpy(out, block_.data() + position_, length);
    position_ += length;
  }

 private:
  const std::string& block_;
  const std::string& path_;
  size_t position_ = 0;
};

}  // namespace

SpillFile::TypeTree SpillFile::TreeOf(const Vector& vector) {
  TypeTree tree{vector.type(), {}};
  for (const VectorPtr& child : vector.children()) tree.children.push_back(TreeOf(*child));
  return tree;
}

namespace {

// `Tree` is SpillFile's TypeTree: the vector's type and its children's.
template <typename Tree>
VectorPtr DecodeVector(BlockReader& reader, const Tree& tree) {
  int64_t length = reader.Get<int64_t>();
  int64_t null_count = reader.Get<int64_t>();
  uint32_t num_buffers = reader.Get<uint32_t>();
  std::vector<BufferPtr> buffers;
  for (uint32_t b = 0; b < num_buffers; ++b) {
    int64_t size = reader.Get<int64_t>();
    if (size < 0) {
      buffers.push_back(nullptr);
      continue;
    }
    BufferPtr buffer = Buffer::Allocate(static_cast<size_t>(size));
    reader.Copy(buffer->data(), static_cast<size_t>(size));
    buffers.push_back(std::move(buffer));
  }
  uint32_t num_children = reader.Get<uint32_t>();
  SILT_CHECK(num_children == tree.children.size(), "spill file vector does not match its type");
  std::vector<VectorPtr> children;
  for (const Tree& child : tree.children) children.push_back(DecodeVector(reader, child));
  return Vector::Make(tree.type, length, std::move(buffers), std::move(children), null_count);
}

}  // namespace

SpillFile::SpillFile(QueryMemory& memory, SchemaPtr schema, ExecCounters* counters)
    : path_(memory.NewSpillFilePath()), schema_(std::move(schema)), counters_(counters) {
  output_ = io::MakeLocalFileSystem()->OpenWrite(path_);
  if (counters_ != nullptr) counters_->spill_files.fetch_add(1, std::memory_order_relaxed);
}

SpillFile::~SpillFile() {
  output_.reset();
  input_.reset();
  try {
    io::MakeLocalFileSystem()->Delete(path_);
  } catch (...) {
    // The query's spill folder is removed when the query ends, with whatever is left in it.
  }
}

void SpillFile::Append(const Batch& batch) {
  SILT_CHECK(output_ != nullptr, "append to a spill file after writing finished");
  if (batch.num_rows() == 0) return;
  if (column_types_.empty()) {
    for (const VectorPtr& column : batch.columns()) column_types_.push_back(TreeOf(*column));
  }
  size_t start = pending_.size();
  Put<uint64_t>(pending_, 0);  // the block's length, filled in below
  Put<int64_t>(pending_, batch.num_rows());
  for (const VectorPtr& column : batch.columns()) EncodeVector(*StartingAtZero(column), pending_);
  uint64_t block_length = pending_.size() - start - sizeof(uint64_t);
  std::memcpy(pending_.data() + start, &block_length, sizeof(uint64_t));
  num_rows_ += batch.num_rows();
  if (pending_.size() >= kWriteChunkBytes) Flush();
}

void SpillFile::Flush() {
  if (pending_.empty()) return;
  output_->Write(pending_.data(), pending_.size());
  num_bytes_ += static_cast<int64_t>(pending_.size());
  if (counters_ != nullptr) {
    counters_->spill_bytes.fetch_add(static_cast<int64_t>(pending_.size()), std::memory_order_relaxed);
  }
  pending_.clear();
  // A large batch may have grown the buffer well past the chunk: give that back.
  if (pending_.capacity() > 4 * kWriteChunkBytes) pending_.shrink_to_fit();
}

void SpillFile::FinishWriting() {
  if (output_ == nullptr) return;
  Flush();
  pending_.shrink_to_fit();
  output_->Close();
  output_.reset();
  input_ = io::MakeLocalFileSystem()->OpenRead(path_);
}

std::optional<Batch> SpillFile::ReadNext() {
  FinishWriting();
  if (read_offset_ >= input_->Size()) return std::nullopt;
  uint64_t block_length = 0;
  input_->ReadExactly(read_offset_, sizeof(uint64_t), &block_length);
  std::string block(block_length, '\0');
  input_->ReadExactly(read_offset_ + sizeof(uint64_t), block_length, block.data());
  read_offset_ += sizeof(uint64_t) + block_length;
  BlockReader reader(block, path_);
  int64_t num_rows = reader.Get<int64_t>();
  std::vector<VectorPtr> columns;
  for (const TypeTree& tree : column_types_) columns.push_back(DecodeVector(reader, tree));
  return Batch(schema_, std::move(columns), num_rows);
}

namespace {

class SpillFileSource final : public Operator {
 public:
  explicit SpillFileSource(std::unique_ptr<SpillFile> file) : Operator(file->schema()), file_(std::move(file)) {}

  std::optional<Batch> Next(ExecContext& context) override {
    if (!file_) return std::nullopt;
    ThrowIfCanceled(context.cancellation);
    std::optional<Batch> batch = file_->ReadNext();
    if (!batch) file_.reset();
    return batch;
  }
  std::string Describe() const override { return "SpillFileSource"; }

 private:
  std::unique_ptr<SpillFile> file_;
};

}  // namespace

std::unique_ptr<Operator> MakeSpillFileSource(std::unique_ptr<SpillFile> file) {
  return std::make_unique<SpillFileSource>(std::move(file));
}

}  // namespace silt::exec
