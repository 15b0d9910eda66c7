// Drives the interactive `silt sql` shell through a pseudo-terminal, as a person at a terminal
// would: multi-line statements with the continuation prompt, tab completion, meta commands, the
// history file, and Ctrl-C both while a statement runs and at the prompt.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace silt {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr auto kWait = std::chrono::seconds(120);

// `silt sql <args>` on the slave side of a pseudo-terminal (its stdin, stdout and stderr).
class PtyShell {
 public:
  PtyShell(const std::vector<std::string>& args, const std::vector<std::string>& environment) {
    const char* binary = std::getenv("SILT_BINARY");
    if (binary == nullptr) {
      ADD_FAILURE() << "SILT_BINARY is set by CTest";
      return;
    }
    winsize size{};
    size.ws_row = 40;
    size.ws_col = 200;
    pid_ = forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      for (const std::string& assignment : environment) putenv(strdup(assignment.c_str()));
      std::vector<char*> argv = {strdup(binary), strdup("sql")};
      for (const std::string& arg : args) argv.push_back(strdup(arg.c_str()));
      argv.push_back(nullptr);
      execv(binary, argv.data());
      _exit(127);
    }
    EXPECT_GT(pid_, 0);
  }

  ~PtyShell() {
    if (pid_ > 0 && exit_code_ < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }

  void Type(const std::string& keys) {
    ASSERT_EQ(write(master_, keys.data(), keys.size()), static_cast<ssize_t>(keys.size()));
  }

  // Reads until the output after the last match holds `text` (carriage returns dropped);
  // returns false on timeout or end of output.
  bool WaitFor(const std::string& text) {
    auto deadline = std::chrono::steady_clock::now() + kWait;
    while (true) {
      size_t found = output_.find(text, cursor_);
      if (found != std::string::npos) {
        cursor_ = found + text.size();
        return true;
      }
      if (std::chrono::steady_clock::now() > deadline || !ReadSome()) {
        ADD_FAILURE() << "no '" << text << "' in the output:\n" << output_.substr(cursor_);
        return false;
      }
    }
  }

  // Reads to the end of the output and returns the exit code.
  int Wait() {
    auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline && ReadSome()) {
    }
    int status = 0;
    if (waitpid(pid_, &status, 0) != pid_) return -1;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exit_code_;
  }

  const std::string& output() const { return output_; }

 private:
  // Appends what the shell wrote within a second; false at end of output.
  bool ReadSome() {
    pollfd fd{master_, POLLIN, 0};
    if (poll(&fd, 1, 1000) <= 0) return true;
    char buffer[4096];
    ssize_t n = read(master_, buffer, sizeof(buffer));
    if (n <= 0) return false;  // EIO once the shell has exited
    for (ssize_t i = 0; i < n; ++i) {
      if (buffer[i] != '\r') output_ += buffer[i];
    }
    return true;
  }

  pid_t pid_ = -1;
  int master_ = -1;
  int exit_code_ = -1;
  std::string output_;
  size_t cursor_ = 0;
};

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SqlInteractiveTest, MultiLineStatementsCompletionMetaCommandsAndTheHistoryFile) {
  test::TempDir home;
  std::string history = home.Child("history");
  PtyShell shell({"--warehouse", home.Child("warehouse")},
                 {"HOME=" + home.path(), "SILT_HISTORY=" + history});
  ASSERT_TRUE(shell.WaitFor("silt> "));
  shell.Type("CREATE TABLE people (id INT, name STRING);\n");
  ASSERT_TRUE(shell.WaitFor("silt> "));
  shell.Type("INSERT INTO people\n");
  ASSERT_TRUE(shell.WaitFor("   > "));
  shell.Type("VALUES (1, 'Ada'),\n");
  ASSERT_TRUE(shell.WaitFor("   > "));
  shell.Type("  (2, 'Linus'); SELECT count(*) AS n\n");
  ASSERT_TRUE(shell.WaitFor("   > "));
  shell.Type("FROM people;\n");
  ASSERT_TRUE(shell.WaitFor("|n  |\n+---+\n|2  |\n+---+\n"));
  // Tab completes the table name from the catalog and a column of it.
  shell.Type("SELECT people.na\t FROM peo\t WHERE id = 2;\n");
  ASSERT_TRUE(shell.WaitFor("|name |\n+-----+\n|Linus|\n"));
  shell.Type(".tables\n");
  ASSERT_TRUE(shell.WaitFor("\npeople\n"));
  shell.Type(".mode csv\n");
  shell.Type("SELECT name FROM people ORDER BY id;\n");
  ASSERT_TRUE(shell.WaitFor("name\nAda\nLinus\n"));
  shell.Type("quit;\n");
  EXPECT_EQ(shell.Wait(), 0);

  // Each statement is one history entry, the multi-line one included (libedit's file format
  // escapes blanks).
  std::string saved = ReadFileText(history);
  EXPECT_THAT(saved, HasSubstr("CREATE"));
  EXPECT_THAT(saved, HasSubstr("Linus"));
  EXPECT_THAT(saved, HasSubstr(".tables"));
  EXPECT_THAT(saved, HasSubstr("quit;"));

  // A new shell reads it: the up arrow brings back the last statement before quit;.
  PtyShell again({"--warehouse", home.Child("warehouse"), "--format", "csv"},
                 {"HOME=" + home.path(), "SILT_HISTORY=" + history});
  ASSERT_TRUE(again.WaitFor("silt> "));
  again.Type("\x1b[A\x1b[A\n");
  ASSERT_TRUE(again.WaitFor("name\nAda\nLinus\n"));
  again.Type(".exit\n");
  EXPECT_EQ(again.Wait(), 0);
}

TEST(SqlInteractiveTest, CtrlCCancelsTheRunningStatementAndTwiceAtThePromptExits) {
  test::TempDir home;
  PtyShell shell({"--warehouse", home.Child("warehouse"), "--progress-delay", "0"},
                 {"HOME=" + home.path(), "SILT_HISTORY="});
  ASSERT_TRUE(shell.WaitFor("silt> "));
  shell.Type("CREATE TABLE big (id BIGINT);\n");
  ASSERT_TRUE(shell.WaitFor("silt> "));
  // A plain copy of these rows can end within one 100 ms redraw of the progress line, before
  // the Ctrl-C: each row also costs a hash, so that the statement runs for seconds.
  shell.Type("INSERT INTO big SELECT id FROM range(6000000) WHERE sha2(CAST(id AS STRING), 512) <> '';\n");
  // stderr is the terminal: the progress line shows (after no delay here).
  ASSERT_TRUE(shell.WaitFor(" rows "));
  shell.Type("\x03");
  ASSERT_TRUE(shell.WaitFor("[OPERATION_CANCELED] The operation has been canceled."));
  ASSERT_TRUE(shell.WaitFor("silt> "));
  shell.Type("SELECT count(*) AS n FROM big;\n");
  ASSERT_TRUE(shell.WaitFor("|0  |"));
  ASSERT_TRUE(shell.WaitFor("silt> "));

  // At the prompt, Ctrl-C drops what was typed; a second one in a row leaves.
  shell.Type("SELECT 'dropped'\n");
  ASSERT_TRUE(shell.WaitFor("   > "));
  shell.Type("\x03");
  ASSERT_TRUE(shell.WaitFor("(To exit, press Ctrl-C again or Ctrl-D, or type .quit)"));
  ASSERT_TRUE(shell.WaitFor("silt> "));
  shell.Type("SELECT 'kept' AS k;\n");
  ASSERT_TRUE(shell.WaitFor("|kept|"));
  ASSERT_TRUE(shell.WaitFor("silt> "));
  shell.Type("\x03");
  ASSERT_TRUE(shell.WaitFor("(To exit"));
  shell.Type("\x03");
  EXPECT_EQ(shell.Wait(), 0);
  EXPECT_THAT(shell.output(), Not(HasSubstr("dropped|")));
}

}  // namespace
}  // namespace silt
