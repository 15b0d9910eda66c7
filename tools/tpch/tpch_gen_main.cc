// silt-tpch-gen: writes the eight TPC-H tables as Delta tables into a folder.
//   silt-tpch-gen [--scale SF] [--seed N] DIR
// DIR/<table> is each table (a silt warehouse folder, when DIR is one); the tables it prints are
// what was written, with row and file counts.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "silt/error.h"
#include "silt/io/file_system.h"
#include "tools/tpch/tpch_generator.h"

namespace {

constexpr const char* kUsage =
    "usage: silt-tpch-gen [--scale SF] [--seed N] DIR\n"
    "  writes the TPC-H tables region, nation, supplier, part, partsupp, customer, orders and\n"
    "  lineitem as Delta tables DIR/<table> (scale factor SF, default 1; seed N, default 0)\n";

int Usage(const char* problem) {
  std::fprintf(stderr, "silt-tpch-gen: %s\n%s", problem, kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  silt::tpch::GenerateOptions options;
  std::string folder;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--scale" || arg == "--seed") {
      if (i + 1 >= argc) return Usage((arg + " needs a value").c_str());
      std::string value = argv[++i];
      char* end = nullptr;
      if (arg == "--scale") {
        options.scale_factor = std::strtod(value.c_str(), &end);
      } else {
        options.seed = std::strtoull(value.c_str(), &end, 10);
      }
      if (value.empty() || *end != '\0')
        return Usage((arg + " wants a number, not '" + value + "'").c_str());
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage(("unknown option " + arg).c_str());
    } else if (folder.empty()) {
      folder = arg;
    } else {
      return Usage("one output folder only");
    }
  }
  if (folder.empty()) return Usage("no output folder");
  try {
    auto started = std::chrono::steady_clock::now();
    auto tables = silt::tpch::Generate(silt::io::MakeLocalFileSystem(), folder, options);
    for (const auto& table : tables) {
      std::printf("%-9s %10lld rows %4lld files  %s\n", table.name.c_str(),
                  static_cast<long long>(table.rows), static_cast<long long>(table.files),
                  table.path.c_str());
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("scale factor %g written in %.1f s\n", options.scale_factor, seconds);
  } catch (const silt::Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
