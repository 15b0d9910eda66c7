#include "command_reference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "man_page.h"
#include "shell_completion.h"

namespace silt::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A small command tree with each kind of option the generators distinguish.
class CommandReferenceTest : public ::testing::Test {
 protected:
  CommandReferenceTest() : app_("tool: does things.\nSecond line.", "tool") {
    app_.add_flag("--hidden", flag_, "Not shown")->group("");
    CLI::App* run = app_.add_subcommand("run", "Run something");
    run->add_option("--format", text_, "Output format")->check(CLI::IsMember({"a", "b"}));
    run->add_option("-d,--dir", text_, "A folder")->type_name("DIR");
    run->add_option("-e,--execute", list_, "Repeatable text")->allow_extra_args(false);
    run->add_flag("--quiet", flag_, ".starts with a dot, has a \\ and \"quotes\"");
    run->add_option("input", text_, "Input file")->type_name("FILE")->required();
    CLI::App* group = app_.add_subcommand("group", "A group");
    group->require_subcommand(1);
    group->add_subcommand("leaf", "A leaf");
  }

  CLI::App app_;
  bool flag_ = false;
  std::string text_;
  std::vector<std::string> list_;
};

TEST_F(CommandReferenceTest, DescribesVisibleCommandsAndOptions) {
  CommandReference program = DescribeCommand(app_);
  EXPECT_THAT(program.path, ElementsAre("tool"));
  ASSERT_EQ(program.subcommands.size(), 2u);
  const CommandReference& run = program.subcommands[0];
  EXPECT_EQ(run.FullName(), "tool run");
  EXPECT_EQ(program.subcommands[1].subcommands.at(0).FullName(), "tool group leaf");
  EXPECT_TRUE(program.subcommands[1].requires_subcommand);
  EXPECT_FALSE(run.requires_subcommand);

  std::vector<std::string> top_names;
  for (const OptionReference& option : program.options) {
    top_names.insert(top_names.end(), option.names.begin(), option.names.end());
  }
  EXPECT_THAT(top_names, ElementsAre("-h", "--help"));  // --hidden is left out

  ASSERT_EQ(run.options.size(), 5u);  // -h/--help first
  const OptionReference& format = run.options[1];
  EXPECT_EQ(format.kind, ValueKind::kChoice);
  EXPECT_THAT(format.choices, ElementsAre("a", "b"));
  const OptionReference& dir = run.options[2];
  EXPECT_THAT(dir.names, ElementsAre("-d", "--dir"));
  EXPECT_EQ(dir.kind, ValueKind::kDirectory);
  EXPECT_FALSE(dir.repeatable);
  const OptionReference& execute = run.options[3];
  EXPECT_EQ(execute.kind, ValueKind::kText);
  EXPECT_TRUE(execute.repeatable);
  const OptionReference& quiet = run.options[4];
  EXPECT_EQ(quiet.kind, ValueKind::kNone);
  EXPECT_FALSE(quiet.takes_value());

  ASSERT_EQ(run.positionals.size(), 1u);
  EXPECT_EQ(run.positionals[0].positional_name, "input");
  EXPECT_EQ(run.positionals[0].kind, ValueKind::kFile);
  EXPECT_TRUE(run.positionals[0].required);
}

TEST(EscapeRoffTest, EscapesWhatRoffWouldInterpret) {
  EXPECT_EQ(EscapeRoff("--format"), "\\-\\-format");
  EXPECT_EQ(EscapeRoff(".SH not a macro"), "\\&.SH not a macro");
  EXPECT_EQ(EscapeRoff("'quote first"), "\\&'quote first");
  EXPECT_EQ(EscapeRoff("a\\b \"c\""), "a\\eb \\(dqc\\(dq");
  EXPECT_EQ(EscapeRoff("plain text"), "plain text");
}

TEST_F(CommandReferenceTest, ManPageHasEveryCommandAndEscapedText) {
  std::ostringstream out;
  ManPageText text;
  text.version = "tool 1.2.3";
  text.exit_status = {{"0", "Success."}, {"70", "A bug."}};
  WriteManPage(DescribeCommand(app_), text, out);
  std::string page = out.str();
  EXPECT_THAT(page, HasSubstr(".TH TOOL 1 \"\" \"tool 1.2.3\""));
  EXPECT_THAT(page, HasSubstr("tool \\- does things\n"));
  EXPECT_THAT(page, HasSubstr(".SS \"tool run\""));
  EXPECT_THAT(page, HasSubstr(".SS \"tool group leaf\""));
  EXPECT_THAT(page, HasSubstr("\\fB\\-d\\fR, \\fB\\-\\-dir\\fR \\fIdir\\fR"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-format\\fR \\fIa\\fR|\\fIb\\fR"));
  EXPECT_THAT(page, HasSubstr("\n\\&.starts with a dot, has a \\e and \\(dqquotes\\(dq\n"));
  EXPECT_THAT(page, HasSubstr(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\nSuccess.\n"));
  EXPECT_THAT(page, Not(HasSubstr("hidden")));
  // The group needs a command, so only runnable commands get a synopsis line.
  size_t synopsis = page.find(".SH SYNOPSIS\n");
  std::string synopsis_lines = page.substr(synopsis, page.find(".SH DESCRIPTION") - synopsis);
  EXPECT_THAT(synopsis_lines, HasSubstr("\\fBtool group leaf\\fR"));
  EXPECT_THAT(synopsis_lines, Not(HasSubstr("\\fBtool group\\fR ")));
}

TEST_F(CommandReferenceTest, CompletionsCoverEachCommand) {
  std::ostringstream bash;
  WriteBashCompletion(DescribeCommand(app_), bash);
  EXPECT_THAT(bash.str(), HasSubstr("complete -F _tool tool\n"));
  EXPECT_THAT(bash.str(), HasSubstr("'--format') _tool_words 'a b' ;;"));
  EXPECT_THAT(bash.str(), HasSubstr("'-d'|'--dir') _tool_paths -d ;;"));
  EXPECT_THAT(bash.str(), HasSubstr("'leaf') command='tool group leaf' ;;"));

  std::ostringstream zsh;
  WriteZshCompletion(DescribeCommand(app_), zsh);
  EXPECT_THAT(zsh.str(), HasSubstr("#compdef tool\n"));
  EXPECT_THAT(zsh.str(), HasSubstr("'(-d --dir)--dir=[A folder]:dir:_files -/'"));
  EXPECT_THAT(zsh.str(), HasSubstr("'*-e+[Repeatable text]:execute: '"));
  EXPECT_THAT(zsh.str(), HasSubstr("':input:_files'"));
  EXPECT_THAT(zsh.str(), HasSubstr("_tool_group_leaf() {"));
  EXPECT_THAT(zsh.str(), Not(HasSubstr("hidden")));
}

}  // namespace
}  // namespace silt::cli
