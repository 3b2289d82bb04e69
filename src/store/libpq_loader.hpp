#pragma once

// libpq is opened when a PostgreSQL store is first used, not when benchwatch starts: with the
// libraries it needs (Kerberos, LDAP, TLS) it added about 4.5 ms to the start of every command,
// PostgreSQL or not. libpq_loader.cpp defines libpq's functions that benchwatch calls, each
// passing the call on to the library it opens; the headers are libpq's own.

#include <optional>
#include <string>

namespace benchwatch::store {

// Opens libpq (once); std::nullopt when it is ready, else why it cannot be opened and what to
// install, e.g. "cannot load libpq.so.5: … (install the libpq5 package)".
std::optional<std::string> libpq_problem();

}  // namespace benchwatch::store
