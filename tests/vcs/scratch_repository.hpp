#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vcs/git.hpp"

namespace benchwatch::testing {

// A git repository in a fresh temporary folder, removed with the object. Commits get fixed
// names and dates (commit number n is dated 2024-01-01 12:00 UTC + n hours), so that every test
// run produces the same history.
class ScratchRepository {
  public:
    ScratchRepository() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "benchwatch-git-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        directory_ = std::filesystem::canonical(pattern);
        git({"init", "--quiet", "-b", "main"});
    }
    ScratchRepository(const ScratchRepository&) = delete;
    ScratchRepository& operator=(const ScratchRepository&) = delete;
    ~ScratchRepository() {
        std::error_code ignored;
        std::filesystem::remove_all(directory_, ignored);
    }

    const std::filesystem::path& directory() const { return directory_; }

    // Runs git in the repository and returns its output without the final newline; a failure
    // fails the test.
    std::string git(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv{"git"};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        const auto date = fmt_date(commits_made_);
        const auto output = vcs::run_process(argv, directory_,
                                             {{"GIT_AUTHOR_NAME", "Ada Lovelace"},
                                              {"GIT_AUTHOR_EMAIL", "ada@example.org"},
                                              {"GIT_COMMITTER_NAME", "Ada Lovelace"},
                                              {"GIT_COMMITTER_EMAIL", "ada@example.org"},
                                              {"GIT_AUTHOR_DATE", date},
                                              {"GIT_COMMITTER_DATE", date},
                                              {"GIT_CONFIG_GLOBAL", "/dev/null"},
                                              {"GIT_CONFIG_NOSYSTEM", "1"}});
        EXPECT_EQ(output.exit_code, 0) << "git " << arguments.front() << ": " << output.err;
        auto text = output.out;
        if (!text.empty() && text.back() == '\n') text.pop_back();
        return text;
    }

    // Commits whatever is staged (or nothing) with `subject`; returns the new commit's SHA.
    std::string commit(const std::string& subject) {
        ++commits_made_;
        git({"commit", "--quiet", "--allow-empty", "-m", subject});
        return git({"rev-parse", "HEAD"});
    }

    // Writes `text` to `name` in the work tree and stages it.
    void write_file(const std::string& name, const std::string& text) {
        std::ofstream(directory_ / name) << text;
        git({"add", name});
    }

    // Unix seconds of commit number `n`'s date.
    static std::int64_t commit_seconds(int n) { return 1704110400 + 3600 * n; }

  private:
    static std::string fmt_date(int n) {
        return "@" + std::to_string(commit_seconds(n)) + " +0000";
    }

    std::filesystem::path directory_;
    int commits_made_ = 0;
};

}  // namespace benchwatch::testing
