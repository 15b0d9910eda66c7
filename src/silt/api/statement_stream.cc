#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "silt/api/session_internal.h"
#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/base/large_stack.h"
#include "silt/exec/memory.h"
#include "silt/exec/operator.h"
#include "silt/sql/ast.h"
#include "silt/sql/planner.h"
#include "silt/sql/session_state.h"

namespace silt::api {
namespace {

// How often a producer waiting for room looks at the session's cancel request.
constexpr auto kCancelPollInterval = std::chrono::milliseconds(50);

[[noreturn]] void ThrowStreamCanceled() { SILT_THROW(OPERATION_CANCELED, {{"reason", ""}}); }

}  // namespace

struct StatementStream::Producer {
  std::shared_ptr<sql::SessionState> state;  // keeps the session's state alive
  sql::QueryPtr query;                       // the AST the plan was made from
  exec::ExecContext context;
  exec::OperatorPtr root;
  // The batches a draining reader keeps, counted against the query's memory limit beside its
  // operators' buffers while the query runs.
  std::unique_ptr<exec::MemoryReservation> collected;

  std::mutex mutex;
  std::condition_variable changed;  // a batch was queued, one was taken, or the producer ended
  std::deque<Batch> ready;          // guarded by mutex
  bool stop = false;                // guarded: the reader wants no more batches
  bool unbounded = false;           // guarded: the reader takes every batch (Drain)
  bool done = false;                // guarded: the thread has released the plan
  std::exception_ptr error;         // guarded: why the query ended early
  std::atomic<bool> canceled{false};
  std::atomic<bool> closed{false};  // Close has begun
  // Whether this stream (and not a caller of Session::Cancel) set the session's cancel request,
  // which it then clears once the query has stopped, for the session's next statements.
  std::atomic<bool> requested_session_cancel{false};
  std::thread thread;

  void Run() {
    std::exception_ptr failure;
    try {
      RunOnLargeStack(kStatementStackBytes, [&] {
        try {
          Produce();
        } catch (...) {
          failure = std::current_exception();
        }
        // Released here, on the statement stack: a deep plan's destructors recurse as deep as
        // its Next. The query's memory goes with it, and its spill folder.
        root.reset();
        collected.reset();
        context.memory.reset();
      });
    } catch (...) {
      failure = std::current_exception();
    }
    state->progress().Finish();
    std::lock_guard<std::mutex> lock(mutex);
    error = failure;
    done = true;
    changed.notify_all();
  }

  void Produce() {
    while (true) {
      std::optional<Batch> batch = root->Next(context);
      ThrowIfCanceled(context.cancellation);
      if (!batch) return;
      std::unique_lock<std::mutex> lock(mutex);
      while (!stop && !unbounded && ready.size() >= kPrefetchBatches) {
        changed.wait_for(lock, kCancelPollInterval);
        ThrowIfCanceled(context.cancellation);
      }
      if (stop) return;
      if (unbounded) {
        // A result collected whole must fit: past the limit the query fails with the limit's
        // class rather than the process running out of memory.
        if (!collected)
          collected = std::make_unique<exec::MemoryReservation>(context.memory, "CollectResult");
        collected->Grow(exec::MemoryBytes(*batch));
      }
      ready.push_back(std::move(*batch));
      changed.notify_all();
    }
  }
};

std::unique_ptr<StatementStream> StatementStream::Open(Session& session,
                                                       const sql::Statement& statement) {
  if (statement.kind != sql::StatementKind::kQuery) return OfRows(RunStatement(session, statement));
  std::unique_ptr<StatementStream> stream(new StatementStream());
  stream->text_ = statement.source_text;

  auto producer = std::make_unique<Producer>();
  producer->state = Access::SharedState(session);
  producer->query = statement.query;
  sql::SessionState& state = *producer->state;
  state.cancellation().ThrowIfRequested();
  ShareStoreSettings(session);
  exec::ExecContext& context = producer->context;
  context.eval = state.MakeEvalContext();
  context.pool = &state.pool();
  context.cancellation = &state.cancellation();
  context.progress = &state.progress();
  context.memory = state.MakeQueryMemory();
  state.progress().Start();
  try {
    sql::PlannedQuery planned;
    RunOnLargeStack(kStatementStackBytes,
                    [&] { planned = sql::PlanQuery(state, *statement.query, context); });
    producer->root = std::move(planned.root);
    stream->schema_ = std::move(planned.schema);
  } catch (...) {
    state.progress().Finish();
    throw;
  }
  stream->time_zone_ = TimeZone::Find(state.MakeEvalContext().time_zone);
  Producer* running = producer.get();
  producer->thread = std::thread([running] { running->Run(); });
  stream->producer_ = std::move(producer);
  return stream;
}

std::unique_ptr<StatementStream> StatementStream::OfRows(StatementOutput output) {
  std::unique_ptr<StatementStream> stream(new StatementStream());
  stream->text_ = output.statement_text();
  stream->schema_ = output.schema();
  stream->time_zone_ = output.time_zone();
  for (const Batch& batch : output.batches()) {
    if (batch.num_rows() > 0) stream->batches_.push_back(batch);
  }
  return stream;
}

StatementStream::~StatementStream() { Close(); }

std::optional<Batch> StatementStream::Next() {
  if (!producer_) {
    if (rows_canceled_.exchange(false)) {
      next_ = batches_.size();
      ThrowStreamCanceled();
    }
    if (next_ >= batches_.size()) return std::nullopt;
    return batches_[next_++];
  }
  Producer& producer = *producer_;
  std::unique_lock<std::mutex> lock(producer.mutex);
  while (true) {
    if (producer.stop) return std::nullopt;  // closed
    // A cancel ends the stream at once, even with batches ready.
    if (producer.canceled || producer.state->cancellation().requested()) {
      lock.unlock();
      Close();
      ThrowStreamCanceled();
    }
    if (!producer.ready.empty()) {
      Batch batch = std::move(producer.ready.front());
      producer.ready.pop_front();
      producer.changed.notify_all();
      return batch;
    }
    if (producer.done) {
      if (producer.error) {
        std::exception_ptr error = producer.error;
        lock.unlock();
        Close();
        std::rethrow_exception(error);
      }
      return std::nullopt;
    }
    producer.changed.wait_for(lock, kCancelPollInterval);
  }
}

bool StatementStream::WaitReady(std::chrono::milliseconds timeout) {
  if (!producer_) return true;
  Producer& producer = *producer_;
  std::unique_lock<std::mutex> lock(producer.mutex);
  return producer.changed.wait_for(lock, timeout, [&] {
    return producer.stop || producer.canceled || producer.done || !producer.ready.empty() ||
           producer.state->cancellation().requested();
  });
}

StatementOutput StatementStream::Drain() {
  if (producer_) {
    // The reader keeps every batch anyway: the producer need never wait for it.
    std::lock_guard<std::mutex> lock(producer_->mutex);
    producer_->unbounded = true;
    producer_->changed.notify_all();
  }
  std::vector<Batch> batches;
  while (std::optional<Batch> batch = Next()) batches.push_back(std::move(*batch));
  return StatementOutput(schema_, std::move(batches), text_, time_zone_);
}

void StatementStream::Cancel() noexcept {
  if (!producer_) {
    if (next_ < batches_.size()) rows_canceled_ = true;
    return;
  }
  // A closed stream's query has ended: a cancel request now would outlive it.
  if (producer_->closed) return;
  producer_->canceled = true;
  producer_->requested_session_cancel = !producer_->state->cancellation().requested();
  producer_->state->cancellation().Cancel();
  producer_->changed.notify_all();
}

void StatementStream::Close() {
  if (!producer_ || !producer_->thread.joinable()) return;
  Producer& producer = *producer_;
  producer.closed = true;
  {
    std::lock_guard<std::mutex> lock(producer.mutex);
    producer.stop = true;
    producer.ready.clear();
    if (!producer.done && !producer.state->cancellation().requested()) {
      // The query may be deep in an operator (a sort, a join's build): the cancel request stops
      // it at its next check instead of after its whole input.
      producer.requested_session_cancel = true;
      producer.state->cancellation().Cancel();
    }
  }
  producer.changed.notify_all();
  producer.thread.join();
  if (producer.requested_session_cancel) producer.state->cancellation().Reset();
}

}  // namespace silt::api
