// log_bench: how fast silt loads the latest snapshot of a big Delta log.
//
// Builds (or reuses, with --table) a table of 10,000 commits holding 100,000 live files, written
// with the log writer's APIs (a creating Transaction, then commit files of `add` actions and a
// checkpoint every 1,000 versions; no data files, since loading a snapshot never reads them),
// then loads its latest snapshot in a fresh process and prints the wall time and the peak
// resident memory (getrusage ru_maxrss) of that process. Targets: < 1 s and < 500 MB. Then, in
// another fresh process, plans a query filtered on a data column through a Session (EXPLAIN:
// snapshot load, file pruning on the statistics, physical plan) and prints its time and the
// files kept. Target: < 1 s.
//
//   log_bench [--table DIR] [--commits N] [--files-per-commit N] [--checkpoint-interval N]

#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "silt/api/session_internal.h"
#include "silt/base/error_class.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/log/checkpoint_writer.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt/log/transaction.h"
#include "silt/session.h"
#include "silt/types/schema_json.h"
#include "silt/vector/vector.h"

namespace {

using silt::log::Action;
using silt::log::AddFile;

struct Settings {
  std::string table;
  int64_t commits = 10'000;
  int64_t files_per_commit = 10;
  int64_t checkpoint_interval = 1'000;
};

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Generate(const Settings& settings) {
  auto fs = silt::io::MakeLocalFileSystem();
  auto start = std::chrono::steady_clock::now();
  silt::Schema schema({silt::Field{"id", silt::LongType(), true, {}},
                       silt::Field{"name", silt::StringType(), true, {}},
                       silt::Field{"day", silt::DateType(), true, {}}});
  silt::log::Metadata metadata;
  metadata.schema_string = silt::ToDeltaSchemaJson(schema);
  metadata.partition_columns = {"day"};
  metadata.configuration = {{"delta.checkpointInterval", std::to_string(settings.checkpoint_interval)}};
  auto create = silt::log::Transaction::StartCreate(fs, settings.table);
  create->UpdateMetadata(metadata);
  create->SetOperation("CREATE TABLE");
  create->Commit();

  std::string log_dir = silt::io::JoinPath(settings.table, "_delta_log");
  int64_t file_number = 0;
  for (int64_t version = 1; version <= settings.commits; ++version) {
    std::vector<Action> actions;
    actions.reserve(static_cast<size_t>(settings.files_per_commit) + 1);
    silt::log::CommitInfo info;
    info.raw_json = "{\"timestamp\":" + std::to_string(1'700'000'000'000 + version) +
                    ",\"operation\":\"WRITE\",\"operationParameters\":{\"mode\":\"Append\"},\"readVersion\":" +
                    std::to_string(version - 1) + ",\"isolationLevel\":\"Serializable\",\"isBlindAppend\":true}";
    actions.emplace_back(std::move(info));
    for (int64_t i = 0; i < settings.files_per_commit; ++i, ++file_number) {
      AddFile add;
      std::string day = "2024-01-" + std::string(file_number % 28 < 9 ? "0" : "") + std::to_string(file_number % 28 + 1);
      add.path = "day=" + day + "/part-00000-" + std::to_string(file_number) +
                 "-5f2a7c1e-0c1d-4e3a-9b1f-4d7a8e6c2b10.c000.snappy.parquet";
      add.partition_values = {{"day", day}};
      add.size = 1'000'000 + file_number;
      add.modification_time = 1'700'000'000'000 + version;
      add.stats = "{\"numRecords\":1000,\"minValues\":{\"id\":" + std::to_string(file_number * 1000) +
                  ",\"name\":\"aaa\"},\"maxValues\":{\"id\":" + std::to_string(file_number * 1000 + 999) +
                  ",\"name\":\"zzz\"},\"nullCount\":{\"id\":0,\"name\":0}}";
      actions.emplace_back(std::move(add));
    }
    fs->PutIfAbsent(silt::io::JoinPath(log_dir, silt::log::FormatVersion(version) + ".json"),
                    silt::log::SerializeActions(actions));
    if (version % settings.checkpoint_interval == 0) {
      silt::log::WriteCheckpoint(fs, settings.table, version);
    }
  }
  std::printf("log_bench: generated %lld commits / %lld live files in %.1f s\n",
              static_cast<long long>(settings.commits), static_cast<long long>(file_number), Seconds(start));
}

// Runs in a fresh process so that ru_maxrss measures the load alone.
int LoadAndReport(const std::string& table, int64_t version) {
  silt::log::SnapshotOptions options;
  if (version >= 0) options.version = version;
  auto start = std::chrono::steady_clock::now();
  auto snapshot = silt::log::Snapshot::Load(silt::io::MakeLocalFileSystem(), table, options);
  double seconds = Seconds(start);
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  double megabytes = static_cast<double>(usage.ru_maxrss) / 1024.0;
  const auto& segment = snapshot->log_segment();
  std::printf(
      "log_bench: loaded %s version %lld (%zu live files; checkpoint %lld + %zu commits) in %.3f s, "
      "peak RSS %.0f MB (targets < 1 s, < 500 MB): %s\n",
      version >= 0 ? "time-travel" : "latest", static_cast<long long>(snapshot->version()), snapshot->files().size(),
      static_cast<long long>(segment.checkpoint ? segment.checkpoint->version : -1), segment.commits.size(),
      seconds, megabytes, seconds < 1.0 && megabytes < 500.0 ? "OK" : "MISSED");
  return 0;
}

// Plans (EXPLAIN) a query whose filter keeps one file by its `id` statistics, in a Session, and
// prints the time and the plan's file counts. Runs in a fresh process too.
int PlanAndReport(const std::string& table) {
  silt::SessionOptions options;
  options.warehouse = std::filesystem::path(table).parent_path().string();
  silt::Session session(options);
  auto start = std::chrono::steady_clock::now();
  silt::StatementOutput output = silt::api::RunStatements(
      session, "EXPLAIN SELECT * FROM delta.`" + table + "` WHERE id = 4242042");
  double seconds = Seconds(start);
  std::string plan;
  for (const silt::Batch& batch : output.batches()) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) plan += batch.column(0)->GetString(row);
  }
  size_t files = plan.find("(files ");
  std::string kept = files == std::string::npos
                         ? "files ?"
                         : plan.substr(files + 1, plan.find(')', files) - files - 1);
  std::printf(
      "log_bench: planned a query filtered on a data column (%s) in %.3f s (target < 1 s): %s\n",
      kept.c_str(), seconds, seconds < 1.0 ? "OK" : "MISSED");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Settings settings;
    std::string load_only, plan_only;
    int64_t load_version = -1;
    for (int i = 1; i < argc; ++i) {
      std::string argument = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) {
          std::fprintf(stderr, "missing value for %s\n", argument.c_str());
          std::exit(2);
        }
        return argv[++i];
      };
      if (argument == "--table") settings.table = next();
      else if (argument == "--commits") settings.commits = std::stoll(next());
      else if (argument == "--files-per-commit") settings.files_per_commit = std::stoll(next());
      else if (argument == "--checkpoint-interval") settings.checkpoint_interval = std::stoll(next());
      else if (argument == "--load-only") load_only = next();
      else if (argument == "--load-version") load_version = std::stoll(next());
      else if (argument == "--plan-only") plan_only = next();
      else {
        std::fprintf(stderr,
                     "usage: log_bench [--table DIR] [--commits N] [--files-per-commit N] "
                     "[--checkpoint-interval N]\n");
        return argument == "--help" ? 0 : 2;
      }
    }
    if (!load_only.empty()) return LoadAndReport(load_only, load_version);
    if (!plan_only.empty()) return PlanAndReport(plan_only);

    bool temporary = settings.table.empty();
    if (temporary) {
      std::string pattern = (std::filesystem::temp_directory_path() / "silt-log-bench-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) {
        std::perror("mkdtemp");
        return 1;
      }
      settings.table = pattern + "/table";
    }
    auto fs = silt::io::MakeLocalFileSystem();
    if (silt::log::ListCommits(*fs, settings.table).empty()) Generate(settings);

    char self[4096];
    ssize_t length = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (length <= 0) return 1;
    self[length] = '\0';
    // The latest version (a checkpoint when the commit count is a multiple of the interval), then
    // the version before it: the worst case of the interval, a checkpoint plus interval-1 commits.
    int status = 0;
    int64_t latest = silt::log::ListCommits(*fs, settings.table).back().version;
    // -2: the planned query on the latest version.
    for (int64_t version : {int64_t{-1}, latest - 1, int64_t{-2}}) {
      std::fflush(stdout);
      pid_t child = ::fork();
      if (child == 0) {
        std::string version_text = std::to_string(version);
        if (version == -2) {
          ::execl(self, self, "--plan-only", settings.table.c_str(), static_cast<char*>(nullptr));
        } else {
          ::execl(self, self, "--load-only", settings.table.c_str(), "--load-version",
                  version_text.c_str(), static_cast<char*>(nullptr));
        }
        ::_exit(127);
      }
      ::waitpid(child, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) break;
    }
    if (temporary) {
      std::error_code ignored;
      std::filesystem::remove_all(std::filesystem::path(settings.table).parent_path(), ignored);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "log_bench failed: %s\n", error.what());
    return 1;
  }
}
