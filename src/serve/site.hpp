#pragma once

#include <filesystem>
#include <stdexcept>

#include "model/error.hpp"
#include "serve/dashboard.hpp"

namespace benchwatch::serve {

// The static site cannot be written. what() is one line naming the folder and how to fix it.
class SiteError : public model::Error {
  public:
    explicit SiteError(const std::string& message) : Error(model::ErrorKind::Site, message) {}
};

// The file write_site() puts into every site it writes; only a folder holding it is replaced.
inline constexpr const char* site_marker_file = ".benchwatch-site";

// What write_site() wrote.
struct SiteSummary {
    std::size_t files = 0;
    std::uintmax_t bytes = 0;
};

// Writes the dashboard as static files into `folder` (docs/dashboard.md, "The static site's
// files"): the page with its data source set to "static", and the data of every project and
// machine with whole series. The site is built beside `folder` and moved into place, so that a
// failure leaves an existing site as it was. `folder` must be absent, empty, or a site written
// before (it holds site_marker_file); anything else is refused with SiteError, so that no file of
// the user's is deleted.
SiteSummary write_site(const Dashboard& dashboard, const std::filesystem::path& folder);

}  // namespace benchwatch::serve
