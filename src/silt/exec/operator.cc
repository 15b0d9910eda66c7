#include "silt/exec/operator.h"

#include <algorithm>

#include "silt/base/thread_pool.h"

namespace silt::exec {

ThreadPool& ExecContext::Pool() const { return pool ? *pool : ThreadPool::Default(); }

size_t ExecContext::Parallelism() const {
  size_t threads = Pool().num_threads();
  return parallelism == 0 ? threads : std::min(parallelism, threads);
}

std::optional<SelectedBatch> Operator::NextSelected(ExecContext& context) {
  std::optional<Batch> batch = Next(context);
  if (!batch) return std::nullopt;
  return SelectedBatch{std::move(*batch), {}};
}

std::vector<Batch> Collect(Operator& root, ExecContext& context) {
  std::vector<Batch> batches;
  while (std::optional<Batch> batch = root.Next(context)) {
    batches.push_back(std::move(*batch));
    ThrowIfCanceled(context.cancellation);
  }
  return batches;
}

namespace {

void ExplainInto(const Operator& node, int depth, std::string& out) {
  if (depth > 0) out.append(static_cast<size_t>(depth - 1) * 3, ' ').append("+- ");
  out += node.Describe();
  out += '\n';
  for (const Operator* child : node.children()) ExplainInto(*child, depth + 1, out);
}

}  // namespace

std::string ExplainTree(const Operator& root) {
  std::string out;
  ExplainInto(root, 0, out);
  return out;
}

std::string JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner: return "Inner";
    case JoinType::kLeftOuter: return "LeftOuter";
    case JoinType::kRightOuter: return "RightOuter";
    case JoinType::kFullOuter: return "FullOuter";
    case JoinType::kLeftSemi: return "LeftSemi";
    case JoinType::kLeftAnti: return "LeftAnti";
    case JoinType::kCross: return "Cross";
  }
  return "Unknown";
}

}  // namespace silt::exec
