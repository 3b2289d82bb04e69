#include "store/libpq_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace benchwatch::store {

namespace {

// The soname that libpq has kept since PostgreSQL 8.2.
constexpr const char* kLibpq = "libpq.so.5";

struct Library {
    void* handle = nullptr;
    std::string problem;
};

const Library& library() {
    static Library opened;
    static std::once_flag once;
    std::call_once(once, [] {
        // RTLD_LOCAL: the symbols below are found with dlsym on this handle, never in place of
        // the forwarding functions of the same names.
        opened.handle = ::dlopen(kLibpq, RTLD_NOW | RTLD_LOCAL);
        if (opened.handle == nullptr) {
            const char* error = ::dlerror();
            opened.problem = fmt::format("cannot load {}: {} (install the libpq5 package)", kLibpq,
                                         error != nullptr ? error : "unknown error");
        }
    });
    return opened;
}

// libpq's function `name`; ends the process with a message when libpq or the function is missing,
// which a store never meets: it asks libpq_problem() before its first call.
void* libpq_symbol(const char* name) {
    const auto& opened = library();
    void* symbol = opened.handle != nullptr ? ::dlsym(opened.handle, name) : nullptr;
    if (symbol == nullptr) {
        std::fprintf(stderr, "benchwatch: %s\n",
                     opened.handle == nullptr
                         ? opened.problem.c_str()
                         : fmt::format("{} has no function {}", kLibpq, name).c_str());
        std::abort();
    }
    return symbol;
}

}  // namespace

std::optional<std::string> libpq_problem() {
    const auto& opened = library();
    if (opened.handle == nullptr) return opened.problem;
    return std::nullopt;
}

}  // namespace benchwatch::store

// Each function as libpq-fe.h declares it, calling the same function of the opened library.
#define BENCHWATCH_FORWARD_TO_LIBPQ(result, name, parameters, arguments)                 \
    extern "C" result name parameters {                                                  \
        static const auto real =                                                         \
            reinterpret_cast<decltype(&::name)>(benchwatch::store::libpq_symbol(#name)); \
        return real arguments;                                                           \
    }

BENCHWATCH_FORWARD_TO_LIBPQ(PGconn*, PQconnectdb, (const char* conninfo), (conninfo))
BENCHWATCH_FORWARD_TO_LIBPQ(void, PQfinish, (PGconn * conn), (conn))
BENCHWATCH_FORWARD_TO_LIBPQ(ConnStatusType, PQstatus, (const PGconn* conn), (conn))
BENCHWATCH_FORWARD_TO_LIBPQ(char*, PQerrorMessage, (const PGconn* conn), (conn))
BENCHWATCH_FORWARD_TO_LIBPQ(PQnoticeProcessor, PQsetNoticeProcessor,
                            (PGconn * conn, PQnoticeProcessor proc, void* arg), (conn, proc, arg))
BENCHWATCH_FORWARD_TO_LIBPQ(PGresult*, PQexec, (PGconn * conn, const char* query), (conn, query))
BENCHWATCH_FORWARD_TO_LIBPQ(PGresult*, PQexecParams,
                            (PGconn * conn, const char* command, int nParams, const Oid* paramTypes,
                             const char* const* paramValues, const int* paramLengths,
                             const int* paramFormats, int resultFormat),
                            (conn, command, nParams, paramTypes, paramValues, paramLengths,
                             paramFormats, resultFormat))
BENCHWATCH_FORWARD_TO_LIBPQ(ExecStatusType, PQresultStatus, (const PGresult* res), (res))
BENCHWATCH_FORWARD_TO_LIBPQ(char*, PQresultErrorField, (const PGresult* res, int fieldcode),
                            (res, fieldcode))
BENCHWATCH_FORWARD_TO_LIBPQ(int, PQntuples, (const PGresult* res), (res))
BENCHWATCH_FORWARD_TO_LIBPQ(char*, PQcmdTuples, (PGresult * res), (res))
BENCHWATCH_FORWARD_TO_LIBPQ(char*, PQgetvalue, (const PGresult* res, int tup_num, int field_num),
                            (res, tup_num, field_num))
BENCHWATCH_FORWARD_TO_LIBPQ(int, PQgetlength, (const PGresult* res, int tup_num, int field_num),
                            (res, tup_num, field_num))
BENCHWATCH_FORWARD_TO_LIBPQ(int, PQgetisnull, (const PGresult* res, int tup_num, int field_num),
                            (res, tup_num, field_num))
BENCHWATCH_FORWARD_TO_LIBPQ(void, PQclear, (PGresult * res), (res))
BENCHWATCH_FORWARD_TO_LIBPQ(int, PQfformat, (const PGresult* res, int field_num), (res, field_num))
BENCHWATCH_FORWARD_TO_LIBPQ(int, PQputCopyData, (PGconn * conn, const char* buffer, int nbytes),
                            (conn, buffer, nbytes))
BENCHWATCH_FORWARD_TO_LIBPQ(int, PQputCopyEnd, (PGconn * conn, const char* errormsg),
                            (conn, errormsg))
BENCHWATCH_FORWARD_TO_LIBPQ(PGresult*, PQgetResult, (PGconn * conn), (conn))
