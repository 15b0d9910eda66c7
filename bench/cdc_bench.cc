// Change data capture from PostgreSQL (issue 20): commits in a real PostgreSQL server (started
// on loopback, as the tests start it) and `silt cdc`'s mirror applying them to a Delta table
// with a one-second trigger. Reports throughput (changes per second, from the first commit to
// the last change visible in Delta) and the lag from a row's commit to its visibility at the
// 50th and 99th percentile, for single-row transactions and for large ones.
//
//   cdc_bench [--rows N] [--large-transactions T] [--large-rows R]
//
// There is no peer engine to compare with: nothing else in this field reads PostgreSQL's
// replication stream without a broker.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "silt/cdc/postgres_cdc_source.h"
#include "silt/cdc/postgres_connection.h"
#include "silt/cdc/testing_postgres_server.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/stream/stream_execution.h"
#include "silt/vector/batch.h"
#include "support/temp_dir.h"

namespace {

using namespace silt;

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

commands::StatementResult Run(sql::SessionState& state, const std::string& text) {
  return commands::ExecuteStatement(state, sql::ParseStatement(text));
}

int64_t Scalar(sql::SessionState& state, const std::string& query) {
  commands::StatementResult result = Run(state, query);
  if (result.batches.empty() || result.batches[0].num_rows() == 0 || result.batches[0].column(0)->IsNull(0)) return 0;
  return std::stoll(result.batches[0].column(0)->ValueToString(0));
}

struct Visibility {
  int64_t at_us;   // when the batch's commit marker was written
  int64_t max_id;  // every id up to this one was visible then
};

struct Phase {
  std::string name;
  int64_t first_id;
  int64_t last_id;
  int64_t started_us;
};

void Report(const Phase& phase, const std::vector<Visibility>& visible, sql::SessionState& reader) {
  commands::StatementResult rows = Run(reader, "SELECT id, unix_micros(ts) FROM events WHERE id BETWEEN " +
                                                   std::to_string(phase.first_id) + " AND " +
                                                   std::to_string(phase.last_id));
  std::vector<int64_t> lags;
  int64_t last_visible = 0;
  for (const Batch& batch : rows.batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      int64_t id = std::stoll(batch.column(0)->ValueToString(r));
      int64_t committed = std::stoll(batch.column(1)->ValueToString(r));
      auto it = std::lower_bound(visible.begin(), visible.end(), id,
                                 [](const Visibility& v, int64_t value) { return v.max_id < value; });
      if (it == visible.end()) continue;
      lags.push_back(it->at_us - committed);
      last_visible = std::max(last_visible, it->at_us);
    }
  }
  std::sort(lags.begin(), lags.end());
  int64_t count = phase.last_id - phase.first_id + 1;
  double seconds = (last_visible - phase.started_us) / 1e6;
  auto percentile = [&](double p) {
    return lags.empty() ? 0.0 : lags[static_cast<size_t>(p * (lags.size() - 1))] / 1000.0;
  };
  std::printf("%-34s %9lld changes  %9.0f changes/s  lag p50 %7.0f ms  p99 %7.0f ms\n", phase.name.c_str(),
              static_cast<long long>(count), seconds > 0 ? count / seconds : 0.0, percentile(0.5),
              percentile(0.99));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 1000000;
  int64_t large_transactions = 10;
  int64_t large_rows = 100000;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rows" && i + 1 < argc) rows = std::atoll(argv[++i]);
    else if (arg == "--large-transactions" && i + 1 < argc) large_transactions = std::atoll(argv[++i]);
    else if (arg == "--large-rows" && i + 1 < argc) large_rows = std::atoll(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--rows N] [--large-transactions T] [--large-rows R]\n", argv[0]);
      return 2;
    }
  }
  cdc::testing::PostgresServer server;
  if (!server.started()) {
    std::fprintf(stderr, "cdc_bench: %s\n", server.error().c_str());
    return 1;
  }
  server.Psql("CREATE TABLE events (id bigint PRIMARY KEY, payload text, ts timestamptz DEFAULT clock_timestamp());");
  test::TempDir folder;
  std::string warehouse = folder.Child("warehouse");
  auto fs = io::MakeLocalFileSystem();
  sql::SessionState state(fs, warehouse);
  sql::SessionState reader(fs, warehouse);

  cdc::PostgresMirrorSpec spec;
  spec.source = cdc::PostgresCdcOptions::FromMap(
      {{"connection", server.Uri()}, {"tables", "public.events"}, {"maxChangesPerBatch", "1000000"}});
  spec.tables = {{"public.events", "events", cdc::MirrorHistory::kScdType1}};
  spec.checkpoint_location = io::JoinPath(warehouse, "_checkpoint");
  stream::StreamSpec stream;
  stream.source = cdc::MakeMirrorSource(fs, spec);
  stream.sink = cdc::MakeMirrorSink(*stream.source, spec);
  stream.query = sql::ParseStatement("SELECT * FROM STREAM(changes)").query;
  stream::ReplaceStreamSource(*stream.query);
  stream.checkpoint_location = spec.checkpoint_location;
  stream.trigger.kind = stream::TriggerKind::kProcessingTime;
  stream.trigger.interval_ms = 1000;
  stream::StreamExecution execution(state, std::move(stream));
  std::mutex mutex;
  std::vector<Visibility> visible;
  execution.SetProgressListener([&](const stream::QueryProgress&) {
    int64_t now = NowMicros();
    int64_t max_id = Scalar(reader, "SELECT max(id) FROM events");
    std::lock_guard<std::mutex> lock(mutex);
    visible.push_back({now, max_id});
  });
  std::thread runner([&] { execution.Run(); });

  auto writer = cdc::PostgresConnection::Open(server.Uri(), false);
  auto wait_for = [&](int64_t id) {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (!visible.empty() && visible.back().max_id >= id) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  };

  std::printf("PostgreSQL -> Delta (1-second trigger), as changes/s and lag from commit to visible:\n");
  // Single-row transactions, sent 500 per round trip (each its own BEGIN ... COMMIT).
  Phase single{"single-row transactions", 1, rows, NowMicros()};
  for (int64_t id = 1; id <= rows;) {
    std::string sql;
    for (int i = 0; i < 500 && id <= rows; ++i, ++id) {
      sql += "BEGIN; INSERT INTO events (id, payload) VALUES (" + std::to_string(id) + ", 'p'); COMMIT;";
    }
    writer->Execute(sql);
  }
  wait_for(rows);
  std::vector<Visibility> snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex);
    snapshot = visible;
  }
  Report(single, snapshot, reader);

  Phase large{std::to_string(large_transactions) + " transactions of " + std::to_string(large_rows) + " rows",
              rows + 1, rows + large_transactions * large_rows, NowMicros()};
  for (int64_t t = 0; t < large_transactions; ++t) {
    int64_t from = rows + 1 + t * large_rows;
    writer->Execute("INSERT INTO events (id, payload) SELECT i, 'p' FROM generate_series(" + std::to_string(from) +
                    ", " + std::to_string(from + large_rows - 1) + ") i");
  }
  wait_for(large.last_id);
  {
    std::lock_guard<std::mutex> lock(mutex);
    snapshot = visible;
  }
  Report(large, snapshot, reader);
  execution.Stop();
  runner.join();
  return 0;
}
