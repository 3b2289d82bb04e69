// What could break: an expected failure of some layer thrown as a type the CLI does not catch
// (which would end benchwatch with "terminate called…" instead of one line and exit code 2), or
// with the wrong kind, so that the CLI words or exits differently from what the kind promises.
#include <gtest/gtest.h>

#include <type_traits>

#include "cli/config.hpp"
#include "cli/defaults.hpp"
#include "compare/compare.hpp"
#include "forge/http.hpp"
#include "github/client.hpp"
#include "gitlab/client.hpp"
#include "ingest/ingest.hpp"
#include "model/error.hpp"
#include "report/report.hpp"
#include "run/confirm.hpp"
#include "run/environment.hpp"
#include "run/latency.hpp"
#include "run/timed_process.hpp"
#include "serve/server.hpp"
#include "serve/site.hpp"
#include "serve/upload.hpp"
#include "store/run_file.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch {
namespace {

using model::ErrorKind;

template <typename Thrown>
ErrorKind kind_of() {
    static_assert(std::is_base_of_v<model::Error, Thrown>, "every expected failure is an Error");
    try {
        throw Thrown("what went wrong");
    } catch (const model::Error& error) {
        EXPECT_STREQ(error.what(), "what went wrong");
        return error.kind();
    }
}

TEST(ErrorKinds, EveryLayersFailureIsAnErrorOfItsKind) {
    EXPECT_EQ(kind_of<cli::UsageError>(), ErrorKind::Usage);
    EXPECT_EQ(kind_of<cli::ConfigError>(), ErrorKind::Config);
    EXPECT_EQ(kind_of<ingest::InputError>(), ErrorKind::Input);
    EXPECT_EQ(kind_of<vcs::GitError>(), ErrorKind::Git);
    EXPECT_EQ(kind_of<store::StoreError>(), ErrorKind::Store);
    EXPECT_EQ(kind_of<store::RunFileError>(), ErrorKind::Store);
    EXPECT_EQ(kind_of<compare::CompareError>(), ErrorKind::Compare);
    EXPECT_EQ(kind_of<report::ReportError>(), ErrorKind::Report);
    EXPECT_EQ(kind_of<run::ConfirmError>(), ErrorKind::Measurement);
    EXPECT_EQ(kind_of<run::StartError>(), ErrorKind::Measurement);
    EXPECT_EQ(kind_of<run::LatencyError>(), ErrorKind::MeasurementAborted);
    EXPECT_EQ(kind_of<run::EnvCommandError>(), ErrorKind::MeasurementAborted);
    EXPECT_EQ(kind_of<serve::ServeError>(), ErrorKind::Serve);
    EXPECT_EQ(kind_of<serve::SiteError>(), ErrorKind::Site);
    EXPECT_EQ(kind_of<serve::UploadError>(), ErrorKind::Upload);
    EXPECT_EQ(kind_of<forge::ForgeError>(), ErrorKind::Forge);
    EXPECT_EQ(kind_of<github::GitHubError>(), ErrorKind::Forge);
    EXPECT_EQ(kind_of<gitlab::GitLabError>(), ErrorKind::Forge);
}

}  // namespace
}  // namespace benchwatch
