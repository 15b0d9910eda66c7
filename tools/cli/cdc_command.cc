#include "cdc_command.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "silt/cdc/lsn.h"
#include "silt/cdc/postgres_cdc_source.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/storage_file_system.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/stream/stream_execution.h"

namespace silt::cli {

namespace {

struct CdcOptions {
  std::string source;
  std::string tables;
  std::string slot = "silt_slot";
  std::string publication = "silt_pub";
  std::string warehouse;
  std::string checkpoint;
  std::string prefix;
  std::string scd2;
  int64_t every_ms = 1000;
  bool available_now = false;
  bool schema_evolution = false;
  int64_t max_changes = 100000;
};

std::atomic<bool> stop_requested{false};

void OnStopSignal(int) { stop_requested.store(true); }

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (char c : text + ",") {
    if (c != ',') {
      if (c != ' ') item += c;
      continue;
    }
    if (!item.empty()) items.push_back(item);
    item.clear();
  }
  return items;
}

// The Delta table a source table is mirrored into: its name without the schema, after the
// prefix ("public.customers" -> "customers", or "<prefix>customers").
std::string TargetName(const std::string& table, const std::string& prefix) {
  size_t dot = table.rfind('.');
  std::string name = dot == std::string::npos ? table : table.substr(dot + 1);
  std::string quoted = "`";
  for (char c : prefix + name) quoted += c == '`' ? std::string("``") : std::string(1, c);
  return quoted + "`";
}

void RunCdc(const CdcOptions& options) {
  std::string warehouse = options.warehouse;
  if (warehouse.empty()) {
    const char* env = std::getenv("SILT_WAREHOUSE");
    warehouse = env != nullptr && *env != '\0' ? env : "silt-warehouse";
  }
  // The warehouse and checkpoint may be on object storage (docs/storage.md), set up from the
  // environment as for every other command.
  auto fs = io::MakeStorageFileSystem(std::make_shared<io::StorageOptions>());
  sql::SessionState state(fs, warehouse);

  cdc::PostgresMirrorSpec spec;
  std::map<std::string, std::string> source_options = {{"connection", options.source},
                                                       {"tables", options.tables},
                                                       {"slot", options.slot},
                                                       {"publication", options.publication},
                                                       {"maxChangesPerBatch", std::to_string(options.max_changes)}};
  spec.source = cdc::PostgresCdcOptions::FromMap(source_options);
  std::vector<std::string> scd2 = SplitList(options.scd2);
  auto qualified = [](const std::string& table) {
    return table.find('.') == std::string::npos ? "public." + table : table;
  };
  // The tables as the source options parsed them.
  for (const std::string& table : spec.source.tables) {
    bool type2 = false;
    for (const std::string& name : scd2) type2 = type2 || qualified(name) == qualified(table);
    spec.tables.push_back(cdc::MirrorTable{table, TargetName(table, options.prefix),
                                           type2 ? cdc::MirrorHistory::kScdType2 : cdc::MirrorHistory::kScdType1});
  }
  for (const std::string& name : scd2) {
    bool listed = false;
    for (const std::string& table : spec.source.tables) listed = listed || qualified(name) == qualified(table);
    if (!listed) throw CLI::ValidationError("--scd2", name + " is not one of --tables");
  }
  spec.checkpoint_location = options.checkpoint.empty()
                                 ? io::JoinPath(io::JoinPath(warehouse, "_silt_cdc"), options.slot)
                                 : options.checkpoint;
  spec.schema_evolution = options.schema_evolution;

  stream::StreamSpec stream;
  stream.source = cdc::MakeMirrorSource(fs, spec);
  stream.sink = cdc::MakeMirrorSink(*stream.source, spec);
  stream.query = sql::ParseStatement("SELECT * FROM STREAM(changes)").query;
  stream::ReplaceStreamSource(*stream.query);
  stream.checkpoint_location = spec.checkpoint_location;
  stream.trigger.kind = options.available_now ? stream::TriggerKind::kAvailableNow
                                              : stream::TriggerKind::kProcessingTime;
  stream.trigger.interval_ms = options.every_ms;
  stream.name = "cdc " + options.slot;
  stream::StreamExecution execution(state, std::move(stream));
  execution.SetProgressListener([](const stream::QueryProgress& progress) {
    std::string lsn;
    using cdc::FormatLsn;
    if (!progress.sources.empty()) lsn = FormatLsn(cdc::PostgresCdcOffset::Parse(progress.sources[0].end_offset).lsn);
    std::fprintf(stderr, "batch %lld: %lld changes applied in %lld ms, up to LSN %s\n",
                 static_cast<long long>(progress.batch_id),
                 static_cast<long long>(progress.sink_num_output_rows < 0 ? 0 : progress.sink_num_output_rows),
                 static_cast<long long>(progress.duration_ms.count("triggerExecution")
                                            ? progress.duration_ms.at("triggerExecution")
                                            : 0),
                 lsn.c_str());
  });

  // Ctrl-C or SIGTERM: stop after the batch in flight commits.
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done.load()) {
      if (stop_requested.load()) {
        std::fprintf(stderr, "stopping after the batch in flight\n");
        execution.Stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  try {
    execution.Run();
  } catch (...) {
    done = true;
    watcher.join();
    throw;
  }
  done = true;
  watcher.join();
}

}  // namespace

void AddCdcCommand(CLI::App& app) {
  auto options = std::make_shared<CdcOptions>();
  CLI::App* cdc = app.add_subcommand(
      "cdc", "Mirror PostgreSQL tables into Delta tables, exactly once, from a logical replication slot");
  cdc->add_option("--source", options->source, "PostgreSQL connection string or postgresql:// URI")
      ->required()
      ->type_name("URI");
  cdc->add_option("--tables", options->tables, "Tables to mirror, comma-separated (schema.table)")
      ->required()
      ->type_name("LIST");
  cdc->add_option("--slot", options->slot, "Replication slot (created when missing; default silt_slot)");
  cdc->add_option("--publication", options->publication,
                  "Publication (created for the tables when missing; default silt_pub)");
  cdc->add_option("--warehouse", options->warehouse,
                  "Folder of the named tables (default $SILT_WAREHOUSE, else ./silt-warehouse)")
      ->type_name("DIR");
  cdc->add_option("--prefix", options->prefix, "Prefix of the Delta table names (default none)");
  cdc->add_option("--scd2", options->scd2,
                  "Tables to keep as SCD type 2, with __START_AT / __END_AT commit LSNs (default: type 1)")
      ->type_name("LIST");
  cdc->add_option("--checkpoint", options->checkpoint,
                  "Checkpoint folder (default <warehouse>/_silt_cdc/<slot>)")
      ->type_name("DIR");
  cdc->add_option("--every-ms", options->every_ms, "Milliseconds between batches (default 1000)")
      ->check(CLI::NonNegativeNumber);
  cdc->add_flag("--available-now", options->available_now,
                "Apply what is committed now, then stop");
  cdc->add_flag("--schema-evolution", options->schema_evolution,
                "Add columns added at the source to the Delta tables (default: stop)");
  cdc->add_option("--max-changes-per-batch", options->max_changes,
                  "End a batch at the first commit after this many changes (default 100000)")
      ->check(CLI::PositiveNumber);
  cdc->callback([options] { RunCdc(*options); });
}

}  // namespace silt::cli
