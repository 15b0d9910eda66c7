#pragma once

// A source operator over fixed batches, for the operators' tests.

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "silt/exec/operator.h"

namespace silt::exec::testing {

/// Hands out its batches in order. With `parallel` it allows parallel pulls (as a scan does):
/// Next is safe from several threads at once either way.
class TestSource final : public Operator {
 public:
  TestSource(SchemaPtr schema, std::vector<Batch> batches, bool parallel = false)
      : Operator(std::move(schema)), batches_(std::move(batches)), parallel_(parallel) {}

  std::optional<Batch> Next(ExecContext&) override {
    const size_t next = next_.fetch_add(1);
    if (next >= batches_.size()) return std::nullopt;
    ++pulls_;
    return batches_[next];
  }
  bool EnableParallelNext() override {
    parallel_pulls_ = parallel_;
    return parallel_;
  }
  std::string Describe() const override { return "TestSource"; }

  /// Batches handed out so far.
  int pulls() const { return pulls_.load(); }
  /// Whether a consumer asked for parallel pulls and was granted them.
  bool parallel_pulls() const { return parallel_pulls_; }

 private:
  std::vector<Batch> batches_;
  bool parallel_;
  bool parallel_pulls_ = false;
  std::atomic<size_t> next_{0};
  std::atomic<int> pulls_{0};
};

}  // namespace silt::exec::testing
