// What could break: the command line a newcomer meets — a mistyped subcommand or flag blamed on
// the wrong word or left without the nearest suggestion, `benchwatch help SUBCOMMAND`, the input
// format's flag and its old spellings, defaults missing from --help or read differently by
// different subcommands, the short flags, `serve --project` accepting a project that is not
// there (and serving, never exiting: such a serve is killed after a timeout and the test fails),
// and compare's default format on a terminal and in a pipe. Messages are checked word for word.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "store/store.hpp"
#include "store/store_url.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

std::string google_benchmark_file(double time) {
    return R"({"benchmarks": [{"name": "a", "run_type": "iteration", "iterations": 10, )"
           R"("real_time": )" +
           std::to_string(time) + R"(, "cpu_time": 1, "time_unit": "ns"}]})" + "\n";
}

class CommandLineTest : public ::testing::Test {
  protected:
    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), directory_.path(), environment);
    }

    // `benchwatch serve ARGUMENTS…` where it must refuse them and exit; one that serves instead
    // is killed after 30 s, and timed_out says so.
    BoundedOutput serve_expecting_exit(const std::vector<std::string>& arguments) {
        auto argv = benchwatch_command(arguments);
        argv.insert(argv.begin() + 1, "serve");
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run_with_timeout(argv, directory_.path(), environment, std::chrono::seconds(30));
    }

    fs::path write(const std::string& name, const std::string& text) {
        write_text(directory_.path() / name, text);
        return directory_.path() / name;
    }

    vcs::ProcessOutput record(const std::string& commit, const std::string& branch,
                              std::vector<std::string> extra = {}) {
        std::vector<std::string> arguments = {
            "record",   "--store",           store_,     "--project", "p", "--machine", "m",
            "--commit", fake_commit(commit), "--branch", branch};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        arguments.push_back(write(commit + ".json", google_benchmark_file(5)).string());
        return benchwatch(arguments);
    }

    std::size_t stored_runs() {
        if (!stores_on_postgres() && !fs::exists(store_)) return 0;
        return store::open_store(store_)->list_runs({}).size();
    }

    // What benchwatch writes to standard output when that is a terminal (a pseudo-terminal),
    // standard error going to the same terminal.
    std::string on_terminal(const std::vector<std::string>& arguments) {
        const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
        EXPECT_GE(master, 0);
        EXPECT_EQ(::grantpt(master), 0);
        EXPECT_EQ(::unlockpt(master), 0);
        const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
        EXPECT_GE(terminal, 0);
        auto argv = benchwatch_command(arguments);
        std::vector<char*> pointers;
        for (auto& argument : argv) pointers.push_back(argument.data());
        pointers.push_back(nullptr);
        std::vector<std::string> variables = {"TERM=xterm", "NO_COLOR=1",
                                              "PATH=" + std::string(std::getenv("PATH"))};
        std::vector<char*> environment;
        for (auto& variable : variables) environment.push_back(variable.data());
        environment.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, terminal, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, terminal, STDERR_FILENO);
        posix_spawn_file_actions_addchdir_np(&actions, directory_.path().c_str());
        pid_t pid = 0;
        EXPECT_EQ(::posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(),
                                environment.data()),
                  0);
        posix_spawn_file_actions_destroy(&actions);
        ::close(terminal);
        std::string screen;
        char buffer[4096];
        for (ssize_t got; (got = ::read(master, buffer, sizeof buffer)) > 0;)
            screen.append(buffer, static_cast<std::size_t>(got));
        ::close(master);
        int status = 0;
        ::waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << screen;
        return screen;
    }

    TemporaryDirectory directory_{"benchwatch-command-line"};
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(CommandLineTest, MistypedSubcommandIsNamedWithTheNearest) {
    auto output = benchwatch({"recrod", "x.txt"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: unknown subcommand 'recrod'; did you mean 'record'? (benchwatch --help "
              "lists the subcommands)\n");
    EXPECT_EQ(output.out, "");

    output = benchwatch({"frobnicate"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: unknown subcommand 'frobnicate'; benchwatch --help lists the subcommands\n");

    output = benchwatch({"github", "comemnt"});
    EXPECT_EQ(output.err,
              "error: unknown subcommand 'comemnt'; did you mean 'comment'? (benchwatch github "
              "--help lists the subcommands)\n");

    output = benchwatch({"github"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: benchwatch github needs a subcommand: comment, summary, status, alert; "
              "benchwatch github --help says what each does\n");
}

TEST_F(CommandLineTest, MistypedFlagIsBlamedAndNotItsValue) {
    auto output = benchwatch({"compare", "--formt", "markdown"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: unknown flag '--formt' for benchwatch compare; did you mean '--format'? "
              "(benchwatch compare --help lists its flags)\n");

    output = benchwatch({"compare", "--formt=markdown"});
    EXPECT_EQ(output.err,
              "error: unknown flag '--formt' for benchwatch compare; did you mean '--format'? "
              "(benchwatch compare --help lists its flags)\n");

    // The harness after "--" is not what is wrong, and nothing runs or is stored.
    output = benchwatch({"run", "--store", store_, "--repetition", "3", "--", "true"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: unknown flag '--repetition' for benchwatch run; did you mean "
              "'--repetitions'? (benchwatch run --help lists its flags)\n");
    EXPECT_EQ(stored_runs(), 0u);

    output = benchwatch({"history", "--zzzzzz"});
    EXPECT_EQ(output.err,
              "error: unknown flag '--zzzzzz' for benchwatch history; benchwatch history --help "
              "lists its flags\n");
}

TEST_F(CommandLineTest, WordsEchoedBackCannotDriveTheTerminal) {
    auto output = benchwatch({"compare", "--form\x1b[2Jt"});
    EXPECT_EQ(output.err,
              "error: unknown flag '--form\\u{1b}[2Jt' for benchwatch compare; benchwatch compare "
              "--help lists its flags\n");
    output = benchwatch({"rec\x07ord"});
    EXPECT_EQ(output.err,
              "error: unknown subcommand 'rec\\u{7}ord'; did you mean 'record'? (benchwatch --help "
              "lists the subcommands)\n");
}

TEST_F(CommandLineTest, HelpSubcommandPrintsTheSubcommandsHelp) {
    for (const std::vector<std::string>& chain :
         {std::vector<std::string>{"compare"}, {"github", "comment"}}) {
        auto asked = chain;
        asked.insert(asked.begin(), "help");
        auto flag = chain;
        flag.push_back("--help");
        const auto output = benchwatch(asked);
        EXPECT_EQ(output.exit_code, 0) << output.err;
        EXPECT_EQ(output.out, benchwatch(flag).out);
        EXPECT_NE(output.out.find("Usage: benchwatch " + describe(chain) + " [OPTIONS]"),
                  std::string::npos)
            << output.out;
    }
    auto output = benchwatch({"help"});
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.out, benchwatch({"--help"}).out);

    output = benchwatch({"help", "comapre"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: unknown subcommand 'comapre'; did you mean 'compare'? (benchwatch --help "
              "lists the subcommands)\n");
}

TEST_F(CommandLineTest, InputFormatHasItsOwnFlagAndTheOldSpellingsWarn) {
    auto output = record("c1", "main", {"--input-format", "googlebenchmark"});
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.err, "");

    output = record("c2", "main", {"--format", "googlebenchmark"});
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.err,
              "warning: benchwatch record --format is deprecated and will be removed in the next "
              "release; use --input-format\n");
    EXPECT_EQ(stored_runs(), 2u);

    const auto help = [&](const std::string& command) {
        return benchwatch({command, "--help"}).out;
    };
    for (const char* command : {"record", "run", "confirm"}) {
        EXPECT_NE(help(command).find("--input-format TEXT"), std::string::npos) << command;
        EXPECT_EQ(help(command).find("--results-format"), std::string::npos) << command;
    }
    EXPECT_EQ(help("record").find("--format"), std::string::npos);
    EXPECT_EQ(help("run").find("--format"), std::string::npos);

    // confirm's --results-format warns the same way (the commands then print nothing).
    output = benchwatch({"confirm", "--base-cmd", "true", "--head-cmd", "true", "--results-format",
                         "go", "--max-rounds", "1"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err.substr(0, output.err.find('\n') + 1),
              "warning: benchwatch confirm --results-format is deprecated and will be removed in "
              "the next release; use --input-format\n");
}

TEST_F(CommandLineTest, EveryDefaultBranchFlagStatesTheSameDefault) {
    const std::string stated =
        "The default branch (default: default_branch in benchwatch.toml, else origin/HEAD's "
        "branch, else main or master, whichever the repository has, else main)";
    for (const std::vector<std::string>& chain : {std::vector<std::string>{"compare"},
                                                  {"record"},
                                                  {"run"},
                                                  {"backfill"},
                                                  {"bisect"},
                                                  {"history"},
                                                  {"backtest"},
                                                  {"serve"},
                                                  {"site"},
                                                  {"github", "comment"},
                                                  {"gitlab", "comment"}}) {
        auto arguments = chain;
        arguments.push_back("--help");
        const std::string help = benchwatch(arguments).out;
        const auto flag = help.find("  --default-branch TEXT ");
        ASSERT_NE(flag, std::string::npos) << describe(arguments) << "\n" << help;
        const auto description = help.find_first_not_of(' ', help.find("TEXT", flag) + 4);
        EXPECT_EQ(help.substr(description, help.find('\n', flag) - description), stated)
            << describe(arguments) << "\n"
            << help;
    }
}

TEST_F(CommandLineTest, EverySubcommandThatRunsBenchmarksTakesTheSameRunningFlags) {
    // Each flag as `benchwatch help SUBCOMMAND` states it: the same line everywhere.
    const std::vector<std::string> expected = {
        "  --no-progress               Plain progress lines only, never a bar redrawn on a "
        "terminal",
        "  --timeout FLOAT:POSITIVE    Seconds after which a command run (a harness, a build, a "
        "suite) is killed (default: none; for the [measure] recipe, its timeout)",
        "  --repo TEXT                 Git work tree whose benchwatch.toml and commits to use "
        "(default: working directory)",
    };
    for (const std::vector<std::string>& chain : {std::vector<std::string>{"run"},
                                                  {"backfill"},
                                                  {"bisect"},
                                                  {"confirm"},
                                                  {"compare"},
                                                  {"github", "comment"},
                                                  {"github", "summary"},
                                                  {"github", "status"},
                                                  {"gitlab", "comment"}}) {
        auto arguments = chain;
        arguments.insert(arguments.begin(), "help");
        const auto help = benchwatch(arguments);
        ASSERT_EQ(help.exit_code, 0) << describe(arguments) << "\n" << help.err;
        for (const auto& line : expected)
            EXPECT_NE(help.out.find(line + "\n"), std::string::npos)
                << describe(arguments) << " lacks:\n"
                << line << "\n"
                << help.out;
    }
    // Given to a subcommand that has no bar to draw, --no-progress is taken, not refused.
    const auto bisect =
        benchwatch({"bisect", "--no-progress", "--timeout", "60", "--benchmark", "a"});
    EXPECT_EQ(bisect.err,
              "error: bisect builds commits of a git repository; run it inside one or pass "
              "--repo\n");
}

TEST_F(CommandLineTest, ShortFlags) {
    auto output = benchwatch({"-v"});
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.out, benchwatch({"--version"}).out);

    ASSERT_EQ(record("c0", "main").exit_code, 0);
    ASSERT_EQ(record("c1", "pr").exit_code, 0);
    const auto report = directory_.path() / "report.md";
    output = benchwatch({"compare", "--store", store_, "--project", "p", "--machine", "m", "--head",
                         fake_commit("c1"), "--base", fake_commit("c0"), "-o", report.string()});
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "");
    EXPECT_TRUE(read_text(report).starts_with("## Benchmark results\n")) << read_text(report);

    EXPECT_NE(benchwatch({"confirm", "--help"}).out.find("-o,--output"), std::string::npos);
    EXPECT_NE(benchwatch({"copy", "--help"}).out.find("-q,--quiet"), std::string::npos);
}

TEST_F(CommandLineTest, ServeRefusesAProjectTheStoreDoesNotHave) {
    auto output =
        serve_expecting_exit({"--store", store_, "--project", "nosuch", "--listen", "127.0.0.1:0"});
    ASSERT_FALSE(output.timed_out) << output.timeout_message;
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: no store at " + store::without_credentials(store_) +
                              "; record a run first (benchwatch record) or pass --store\n");

    ASSERT_EQ(record("c0", "main").exit_code, 0);
    output = serve_expecting_exit(
        {"--store", store_, "--project", "p\x1b[31m", "--listen", "127.0.0.1:0"});
    ASSERT_FALSE(output.timed_out) << output.timeout_message;
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: no project 'p\\u{1b}[31m' in " +
                              store::without_credentials(store_) + "; projects: p\n");
    EXPECT_EQ(output.out, "");
}

TEST_F(CommandLineTest, CompareWritesTextOnATerminalAndMarkdownElsewhere) {
    ASSERT_EQ(record("c0", "main").exit_code, 0);
    ASSERT_EQ(record("c1", "pr").exit_code, 0);
    const std::vector<std::string> compare = {
        "compare", "--store",         store_,   "--project",      "p", "--machine", "m",
        "--head",  fake_commit("c1"), "--base", fake_commit("c0")};
    const auto piped = benchwatch(compare);
    EXPECT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_TRUE(piped.out.starts_with("## Benchmark results\n")) << piped.out;

    auto as_text = compare;
    as_text.insert(as_text.end(), {"--format", "text"});
    const auto text = benchwatch(as_text).out;
    ASSERT_TRUE(text.starts_with("Benchmark results\n")) << text;
    // The terminal turns "\n" into "\r\n".
    std::string screen = on_terminal(compare);
    std::erase(screen, '\r');
    EXPECT_EQ(screen, text);
}

}  // namespace
}  // namespace benchwatch::testing
