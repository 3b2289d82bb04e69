#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/recording.hpp"
#include "ingest/assemble.hpp"
#include "ingest/ingest.hpp"
#include "serve/upload.hpp"

namespace benchwatch::cli {

namespace {

struct RecordFlags {
    RunFlags run;
    std::vector<std::string> files;
    std::string server;
    std::string token_file;
};

// Sends the files and metadata of `run` to the upload server instead of opening a store; the
// server checks them again as record just did and answers with what it stored.
int upload_run(const RecordFlags& flags, const model::Run& run,
               const ingest::RunMetadata& metadata) {
    if (flags.token_file.empty())
        throw UsageError(
            "--server needs --token-file FILE, the file holding the server's upload "
            "token");
    const serve::TokenFile token = serve::read_token_file(flags.token_file);
    if (token.warning) std::cerr << "warning: " << *token.warning << '\n';
    serve::RunUpload upload;
    upload.format = flags.run.format;
    upload.metadata = metadata;
    for (const auto& file : flags.files) {
        if (std::filesystem::is_directory(file))
            throw UsageError(
                fmt::format("{}: is a folder; record --server uploads files only, "
                            "so record a folder's results without --server",
                            file));
        std::ifstream stream(file, std::ios::binary);
        std::string content{std::istreambuf_iterator<char>(stream), {}};
        if (!stream && !stream.eof())
            throw UsageError(fmt::format("{}: cannot be read for the upload", file));
        upload.files.push_back({file, std::move(content)});
    }
    const serve::UploadReceipt receipt = serve::send_upload(flags.server, token.token, upload);
    print_record_outcome(run, {receipt.run_id, receipt.inserted, receipt.attempt});
    return 0;
}

int run_record(const RecordFlags& flags) {
    // Everything is read and checked before the store is opened, so bad input changes nothing.
    std::vector<ingest::NamedResults> files;
    for (const auto& file : flags.files) {
        auto parsed = ingest::parse_file(file, flags.run.format);
        for (const auto& warning : parsed.warnings) print_warning(warning);
        files.push_back({file, std::move(parsed)});
    }
    const Context context = Context::discover(flags.run.common.repo);
    const ingest::RunMetadata metadata =
        resolve_run_metadata(flags.run, context, ResultsSource::Files);
    model::Run run = ingest::assemble_run(std::move(files), metadata);
    if (!flags.server.empty()) return upload_run(flags, run, metadata);
    const auto store_url = resolve_store(flags.run.common, context);
    const auto store = store::open_store(store_url);
    record_and_report(*store, store_url, run);
    return 0;
}

}  // namespace

void add_common_flags(CLI::App& command, CommonFlags& flags) {
    command.add_option("--store", flags.store,
                       "Store: a SQLite path, sqlite:PATH or postgres://… (default: "
                       "BENCHWATCH_STORE, config, .benchwatch/history.db)");
    command.add_option("--project", flags.project, "Project name");
    command.add_option("--machine", flags.machine, "Machine the runs come from (default: host)");
    add_repo_flag(command, flags.repo);
}

Command add_record_command(CLI::App& parent) {
    auto flags = std::make_shared<RecordFlags>();
    auto* command = parent.add_subcommand("record", "Store benchmark results as one run");
    add_run_flags(*command, flags->run);
    auto* server = command->add_option(
        "--server", flags->server,
        "Upload to benchwatch serve --allow-upload at this URL instead of writing a store");
    command
        ->add_option("--token-file", flags->token_file,
                     "File holding the upload server's bearer token (with --server)")
        ->needs(server);
    server->excludes(command->get_option("--store"));
    command->add_option("FILE", flags->files, "Result files")->required();
    return {command, [flags] { return run_record(*flags); }};
}

}  // namespace benchwatch::cli
