// `silt report --html` in a real browser: headless Chromium renders the page to a PNG, which must
// not be blank and must show the bars' colours, and the DOM it builds must carry, as chart
// labels, the numbers the table's log holds. Skips when Chromium is not installed.

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt_process.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

using test::RunResult;
using test::RunSilt;

// $SILT_CHROMIUM, else the first of chromium / chromium-browser on $PATH.
std::optional<std::string> FindChromium() {
  if (const char* explicit_path = std::getenv("SILT_CHROMIUM"); explicit_path && *explicit_path) {
    if (access(explicit_path, X_OK) == 0) return std::string(explicit_path);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  for (const char* name : {"chromium", "chromium-browser"}) {
    std::string folders = path;
    size_t start = 0;
    while (start <= folders.size()) {
      size_t end = folders.find(':', start);
      if (end == std::string::npos) end = folders.size();
      std::string candidate = folders.substr(start, end - start) + "/" + name;
      if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  return std::nullopt;
}

// Runs headless Chromium on `url` with `mode` (--screenshot=..., --dump-dom), stdout to `out`.
// It gets a fresh profile (inside `dir`) and nothing that talks to the network.
int RunChromium(const std::string& chromium, const test::TempDir& dir, const std::string& mode,
                const std::string& url, const std::string& out) {
  std::string profile = dir.Child("profile");
  std::string command = "timeout 60 " + chromium +
                        " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                        " --disable-background-networking --disable-component-update"
                        " --disable-sync --hide-scrollbars --user-data-dir=" +
                        profile + " --window-size=1200,2000 " + mode + " " + url + " > " + out +
                        " 2> " + dir.Child("chromium.err");
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// An 8-bit RGB or RGBA PNG without interlacing, decoded to RGB; what Chromium writes.
struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgb;
};

uint32_t BigEndian32(const std::string& bytes, size_t at) {
  return (uint32_t{static_cast<uint8_t>(bytes[at])} << 24) |
         (uint32_t{static_cast<uint8_t>(bytes[at + 1])} << 16) |
         (uint32_t{static_cast<uint8_t>(bytes[at + 2])} << 8) |
         uint32_t{static_cast<uint8_t>(bytes[at + 3])};
}

int Paeth(int a, int b, int c) {
  int p = a + b - c;
  int pa = std::abs(p - a);
  int pb = std::abs(p - b);
  int pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// Decodes `png`; nullopt (with the reason in `error`) for anything else.
std::optional<Image> DecodePng(const std::string& png, std::string* error) {
  static const std::string kSignature = "\x89PNG\r\n\x1a\n";
  if (png.compare(0, kSignature.size(), kSignature) != 0) {
    *error = "not a PNG";
    return std::nullopt;
  }
  Image image;
  int channels = 0;
  std::string compressed;
  for (size_t at = kSignature.size(); at + 8 <= png.size();) {
    uint32_t length = BigEndian32(png, at);
    std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) break;
    std::string data = png.substr(at + 8, length);
    if (type == "IHDR") {
      image.width = BigEndian32(data, 0);
      image.height = BigEndian32(data, 4);
      int depth = static_cast<uint8_t>(data[8]);
      int color = static_cast<uint8_t>(data[9]);
      int interlace = static_cast<uint8_t>(data[12]);
      channels = color == 2 ? 3 : color == 6 ? 4 : 0;
      if (depth != 8 || channels == 0 || interlace != 0) {
        *error = "unsupported PNG layout";
        return std::nullopt;
      }
    } else if (type == "IDAT") {
      compressed += data;
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  size_t stride = static_cast<size_t>(image.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * image.height);
  uLongf raw_size = raw.size();
  if (channels == 0 ||
      uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(compressed.data()),
                 compressed.size()) != Z_OK ||
      raw_size != raw.size()) {
    *error = "bad image data";
    return std::nullopt;
  }
  std::vector<uint8_t> pixels(stride * image.height);
  for (uint32_t y = 0; y < image.height; ++y) {
    uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* row = &pixels[y * stride];
    const uint8_t* above = y > 0 ? &pixels[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= static_cast<size_t>(channels) ? row[x - channels] : 0;
      int b = above ? above[x] : 0;
      int c = above && x >= static_cast<size_t>(channels) ? above[x - channels] : 0;
      int predictor = 0;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) / 2;
          break;
        case 4:
          predictor = Paeth(a, b, c);
          break;
        default:
          *error = "bad filter";
          return std::nullopt;
      }
      row[x] = static_cast<uint8_t>(in[x] + predictor);
    }
  }
  image.rgb.reserve(static_cast<size_t>(image.width) * image.height * 3);
  for (size_t i = 0; i < pixels.size(); i += channels) {
    image.rgb.insert(image.rgb.end(), pixels.begin() + i, pixels.begin() + i + 3);
  }
  return image;
}

// The text of the first SVG <text> element of `css_class` whose attributes include `attribute`.
std::optional<std::string> Label(const std::string& dom, const std::string& css_class,
                                 const std::string& attribute) {
  std::regex pattern("<text class=\"" + css_class + "\"[^>]*" + attribute + "[^>]*>([^<]*)</text>");
  std::smatch match;
  if (!std::regex_search(dom, match, pattern)) return std::nullopt;
  return match[1].str();
}

TEST(ReportBrowserTest, ChromiumRendersTheChartsWithTheLogsNumbers) {
  std::optional<std::string> chromium = FindChromium();
  if (!chromium) {
    GTEST_SKIP() << "chromium is not installed (scripts/setup installs it; or set SILT_CHROMIUM)";
  }
  test::TempDir dir;
  std::string warehouse = dir.Child("warehouse");
  std::string statements =
      "CREATE TABLE sales (id INT, region STRING) USING delta PARTITIONED BY (region) "
      "TBLPROPERTIES (delta.enableDeletionVectors = true);\n";
  for (int i = 0; i < 4; ++i) {
    statements += "INSERT INTO sales VALUES (" + std::to_string(1000 + i) + ", 'north');\n";
  }
  statements += "INSERT INTO sales SELECT CAST(id AS INT), 'south' FROM range(100, 110);\n";
  statements += "DELETE FROM sales WHERE id < 104;\n";
  std::ofstream(dir.Child("script.sql")) << statements;
  RunResult created = RunSilt("sql --warehouse " + warehouse + " -f " + dir.Child("script.sql"));
  ASSERT_EQ(created.exit_code, 0) << created.err;

  std::string page = dir.Child("report.html");
  RunResult report = RunSilt("report sales --warehouse " + warehouse + " --html " + page);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::string html = test::ReadFileText(page);
  // Self-contained: no scripts and nothing fetched from elsewhere.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://www.w3.org/2000/svg"), html.find("http"));
  EXPECT_EQ(html.find("https:"), std::string::npos);

  // What the log says.
  auto fs = io::MakeLocalFileSystem();
  std::string root = warehouse + "/sales";
  auto snapshot = log::Snapshot::Load(fs, root);
  std::map<std::string, int64_t> files_per_partition;
  for (const log::AddFile& file : snapshot->files()) {
    ++files_per_partition["region=" + *file.partition_values.at(0).second];
  }
  std::map<int64_t, int64_t> rows_added;  // version -> logical rows of its adds
  for (const log::CommitFile& commit : log::ListCommits(*fs, root)) {
    for (const log::Action& action :
         log::ParseActions(fs->ReadFile(commit.file.path), commit.file.path)) {
      if (const auto* add = std::get_if<log::AddFile>(&action)) {
        int64_t records = log::FileStats::Parse(*add->stats, add->path).num_records().value();
        rows_added[commit.version] +=
            records - (add->deletion_vector ? add->deletion_vector->cardinality : 0);
      }
    }
  }
  ASSERT_EQ(files_per_partition["region=north"], 4);
  ASSERT_EQ(rows_added[5], 10);
  ASSERT_EQ(rows_added[6], 6);

  // One browser run writes both the screenshot and the DOM it rendered.
  std::string url = "file://" + page;
  std::string png_path = dir.Child("report.png");
  std::string dom_path = dir.Child("dom.html");
  ASSERT_EQ(RunChromium(*chromium, dir, "--screenshot=" + png_path + " --dump-dom", url, dom_path),
            0)
      << test::ReadFileText(dir.Child("chromium.err"));
  std::string dom = test::ReadFileText(dom_path);
  ASSERT_NE(dom.find("<svg id=\"size-histogram\""), std::string::npos) << dom.substr(0, 2000);
  // Every live file is a few hundred bytes: the first bar counts them all.
  EXPECT_EQ(Label(dom, "value", "data-bucket=\"0\""), std::to_string(snapshot->files().size()));
  for (const auto& [version, rows] : rows_added) {
    EXPECT_EQ(Label(dom, "added", "data-version=\"" + std::to_string(version) + "\""),
              std::to_string(rows))
        << "version " << version;
  }
  EXPECT_EQ(Label(dom, "removed", "data-version=\"6\""), "10");
  for (const auto& [partition, files] : files_per_partition) {
    std::optional<std::string> label = Label(dom, "value", "data-partition=\"" + partition + "\"");
    ASSERT_TRUE(label.has_value()) << partition;
    EXPECT_EQ(label->rfind(std::to_string(files) + " files, ", 0), 0u) << *label;
  }
  EXPECT_EQ(Label(dom, "value", "data-deleted=\"4\""), "4 of 10 rows deleted (40.0%)");

  std::string error;
  std::optional<Image> image = DecodePng(test::ReadFileText(png_path), &error);
  ASSERT_TRUE(image.has_value()) << error;
  EXPECT_EQ(image->width, 1200u);
  int64_t inked = 0;
  int64_t red_bars = 0;  // the small-file and dense-deletion-vector colour, #e45756
  for (size_t i = 0; i + 2 < image->rgb.size(); i += 3) {
    int r = image->rgb[i], g = image->rgb[i + 1], b = image->rgb[i + 2];
    if (r < 240 || g < 240 || b < 240) ++inked;
    if (std::abs(r - 0xe4) < 8 && std::abs(g - 0x57) < 8 && std::abs(b - 0x56) < 8) ++red_bars;
  }
  int64_t total = static_cast<int64_t>(image->width) * image->height;
  EXPECT_GT(inked, total / 100) << "the page rendered (almost) blank";
  EXPECT_GT(red_bars, 500) << "no bars drawn";
}

}  // namespace
}  // namespace silt
