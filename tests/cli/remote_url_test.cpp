// What could break: the project a clone records into when no flag, variable or config names one,
// read from its origin's URL: a scheme, port, user, scp-like host, trailing slash, ".git" or
// local path taken for the name, or a URL without a path naming a project at all.
#include <gtest/gtest.h>

#include "cli/defaults.hpp"

namespace benchwatch::cli {
namespace {

TEST(RemoteUrlTest, TheLastPathComponentWithoutGitNamesTheProject) {
    for (const char* url : {
             "https://github.com/google/snappy.git",
             "https://github.com/google/snappy",
             "https://github.com/google/snappy/",
             "https://github.com/google/snappy.git/",
             "https://user@gitlab.example.org:8443/group/sub/snappy.git",
             "ssh://git@github.com:22/google/snappy.git",
             "git@github.com:google/snappy",
             "git@github.com:google/snappy.git",
             "github.com:snappy.git",
             "file:///srv/git/snappy.git",
             "/srv/git/snappy",
             "/srv/git/snappy/.git",
             "../snappy.git",
             "C:\\repos\\snappy",
             "https://github.com/google/snappy.git?ref=main",
             "https://github.com/google/snappy\n",
         })
        EXPECT_EQ(project_of_remote_url(url), "snappy") << url;
}

TEST(RemoteUrlTest, AUrlWithoutAPathNamesNoProject) {
    for (const char* url : {"", "https://github.com", "https://github.com/",
                            "https://github.com:443/", "/", ".", "..", ".git"})
        EXPECT_EQ(project_of_remote_url(url), std::nullopt) << url;
}

}  // namespace
}  // namespace benchwatch::cli
