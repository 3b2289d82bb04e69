// What could break: a path that reaches a file outside the page, a write method answered, the
// page served without its security headers, new runs never shown, or --listen misread.

#include "serve/server.hpp"

#include <gtest/gtest.h>
#include <httplib.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "sample_history.hpp"
#include "serve/assets.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"

namespace benchwatch::serve {
namespace {

using nlohmann::json;

class ServerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::string url = benchwatch::testing::test_store_url(directory_.path());
        store_ = store::open_store(url);
        testing::record_sample_history(*store_);
        // The server's own connection, as `serve` has, and its dashboard extended with new runs.
        server_store_ = store::open_store(url);
        loader_ = std::make_unique<DashboardLoader>(*server_store_, nullptr, DashboardOptions{});
        DashboardSource source;
        source.version = [this] { return server_store_->last_run_id(); };
        source.load = [this] { return loader_->load(); };
        source.update = [this](const Dashboard& previous, const auto& show_unjudged) {
            return loader_->update(previous, show_unjudged);
        };
        source.compare_pull = [this](const std::string&, const std::string&,
                                     const std::string& commit) {
            ++comparisons_;
            if (commit != "f1") return error_response(404, "no comparison here");
            return Response{200, "application/json; charset=utf-8", R"({"head":"f1"})"};
        };
        server_ =
            std::make_unique<DashboardServer>(std::move(source), std::chrono::milliseconds(50));
        port_ = server_->bind({"127.0.0.1", 0});
        serving_ = std::thread([this] { server_->run(); });
        client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    }

    void TearDown() override {
        server_->stop();
        serving_.join();
    }

    int status_of(const std::string& method, const std::string& path) {
        // Sends the path exactly as written, without the client normalising it.
        httplib::Request request;
        request.method = method;
        request.path = path;
        if (method == "POST" || method == "PUT") request.body = "{}";
        const auto result = client_->send(request);
        return result ? result->status : -1;
    }

    // Waits until the benchmarks of machine m1 hold `runs` commits; false after 20 s.
    bool wait_for_runs(int runs) {
        // The server looks every 50 ms; 20 s is for a slow machine.
        for (int attempt = 0; attempt < 400; ++attempt) {
            const auto result = client_->Get("/api/v1/projects/p/benchmarks");
            if (result && json::parse(result->body)["runs"] == runs) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    }

    benchwatch::testing::TemporaryDirectory directory_{"benchwatch-serve"};
    std::atomic<int> comparisons_ = 0;
    std::unique_ptr<store::Store> store_;
    std::unique_ptr<store::Store> server_store_;
    std::unique_ptr<DashboardLoader> loader_;
    std::unique_ptr<DashboardServer> server_;
    int port_ = 0;
    std::thread serving_;
    std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServerTest, PageAtTheRootWithItsSecurityHeaders) {
    const auto result = client_->Get("/");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 200);
    EXPECT_EQ(result->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(result->body.find(R"(<meta name="benchwatch-data" content="api">)"),
              std::string::npos);
    EXPECT_EQ(result->get_header_value("X-Content-Type-Options"), "nosniff");
    EXPECT_NE(result->get_header_value("Content-Security-Policy").find("default-src 'self'"),
              std::string::npos);
}

TEST_F(ServerTest, EveryEmbeddedFileWithItsMediaType) {
    ASSERT_FALSE(embedded_assets().empty());
    for (const Asset& asset : embedded_assets()) {
        const auto result = client_->Get("/" + std::string(asset.path));
        ASSERT_TRUE(result) << asset.path;
        EXPECT_EQ(result->status, 200) << asset.path;
        EXPECT_EQ(result->get_header_value("Content-Type"), asset.content_type) << asset.path;
        if (asset.path != "index.html") {
            EXPECT_EQ(result->body, asset.bytes) << asset.path;
        }
    }
}

TEST_F(ServerTest, ThePageCarriesTheDataOfItsFirstScreen) {
    const auto page = client_->Get("/?pkg=p");
    ASSERT_TRUE(page);
    const std::string opening = R"(<script id="benchwatch-initial" type="application/json">)";
    const auto at = page->body.find(opening);
    ASSERT_NE(at, std::string::npos);
    const auto start = at + opening.size();
    const auto data =
        json::parse(page->body.substr(start, page->body.find("</script>", start) - start));
    EXPECT_EQ(data["project"], "p");
    EXPECT_EQ(data["machine"], "m1");
    // A project the store does not have: the page as built, which asks the API itself.
    const auto unknown = client_->Get("/?pkg=nope");
    ASSERT_TRUE(unknown);
    EXPECT_NE(unknown->body.find(std::string(page_data_placeholder)), std::string::npos);
}

TEST_F(ServerTest, PathsOutsideThePageAndUnknownRoutesAreNotFound) {
    for (const std::string path :
         {"/../etc/passwd", "/assets/../../etc/passwd", "/%2e%2e/etc/passwd", "/assets/%2e%2e/x",
          "/assets//app.js", "/etc/passwd", "/index.html%00.js", "/api/v1/nope", "/api/v2/projects",
          "/api/v1/projects/p/../../x"})
        EXPECT_EQ(status_of("GET", path), 404) << path;
}

TEST_F(ServerTest, NoWriteRoute) {
    for (const std::string method : {"POST", "PUT", "DELETE", "PATCH"}) {
        EXPECT_EQ(status_of(method, "/api/v1/projects"), 405) << method;
        EXPECT_EQ(status_of(method, "/api/v1/runs"), 405) << method;
    }
    const auto result = client_->Post("/api/v1/runs", "{}", "application/json");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->get_header_value("Allow"), "GET, HEAD");
    EXPECT_EQ(json::parse(result->body),
              json({{"error", "benchwatch serve is read-only: only GET and HEAD are answered"}}));
}

TEST_F(ServerTest, ApiAnswersWithPercentDecodedNames) {
    const auto result = client_->Get("/api/v1/projects/%70/benchmarks?machine=m%32");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 200) << result->body;
    EXPECT_EQ(json::parse(result->body)["machine"], "m2");
    const auto missing = client_->Get("/api/v1/projects/p/pulls/zz");
    ASSERT_TRUE(missing);
    EXPECT_EQ(missing->status, 404);
    EXPECT_EQ(json::parse(missing->body), json({{"error", "no comparison here"}}));
}

TEST_F(ServerTest, NewRunsAppearWithoutARestart) {
    model::Run run = testing::sample_run("m1", "c11", 12);
    run.results = {testing::result("a", 120)};
    store_->record(run);
    EXPECT_TRUE(wait_for_runs(11));
}

// `data`, a gzip member, inflated; "not gzip" when it is not one.
std::string gunzipped(const std::string& data) {
    z_stream stream{};
    if (inflateInit2(&stream, 15 + 16) != Z_OK) return "not gzip";
    std::string out(64 * data.size() + 1024, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = inflate(&stream, Z_FINISH);
    out.resize(stream.total_out);
    inflateEnd(&stream);
    return status == Z_STREAM_END ? out : "not gzip";
}

TEST_F(ServerTest, JsonIsGzippedOnlyForAClientThatAcceptsIt) {
    client_->set_decompress(false);
    const std::vector<std::string> paths = {
        "/api/v1/projects", "/api/v1/projects/p/benchmarks",
        "/api/v1/projects/p/series/" + stable_id("a") + "?points=5"};
    for (const std::string& path : paths) {
        const auto plain = client_->Get(path, {{"Accept-Encoding", "identity"}});
        ASSERT_TRUE(plain);
        EXPECT_EQ(plain->status, 200);
        EXPECT_FALSE(plain->has_header("Content-Encoding")) << path;
        EXPECT_EQ(plain->get_header_value("Vary"), "Accept-Encoding") << path;
        EXPECT_TRUE(json::accept(plain->body)) << path;
        const auto refused = client_->Get(path, {{"Accept-Encoding", "gzip;q=0, identity"}});
        ASSERT_TRUE(refused);
        EXPECT_EQ(refused->body, plain->body) << path;

        const auto gzipped = client_->Get(path, {{"Accept-Encoding", "br;q=1.0, GZIP;q=0.5"}});
        ASSERT_TRUE(gzipped);
        EXPECT_EQ(gzipped->status, 200);
        EXPECT_EQ(gzipped->get_header_value("Vary"), "Accept-Encoding") << path;
        if (plain->body.size() < 1024 && path.find("series") != std::string::npos) {
            // Too short to be worth it.
            EXPECT_EQ(gzipped->body, plain->body);
            continue;
        }
        EXPECT_EQ(gzipped->get_header_value("Content-Encoding"), "gzip") << path;
        EXPECT_EQ(gunzipped(gzipped->body), plain->body) << path;
    }
}

TEST_F(ServerTest, ThePageIsNeverBrotliCompressedEvenWhenTheBrowserAcceptsIt) {
    // Browsers send "gzip, deflate, br"; httplib compressed the page with Brotli at its highest
    // quality for each request, seconds for a large page. gzip is used instead, once.
    client_->set_decompress(false);
    const auto plain = client_->Get("/", {{"Accept-Encoding", "identity"}});
    ASSERT_TRUE(plain);
    ASSERT_EQ(plain->status, 200);
    ASSERT_NE(plain->body.find("<html"), std::string::npos);
    const auto browser = client_->Get("/", {{"Accept-Encoding", "gzip, deflate, br"}});
    ASSERT_TRUE(browser);
    EXPECT_EQ(browser->get_header_value("Content-Encoding"), "gzip");
    EXPECT_EQ(browser->get_header_value_count("Content-Encoding"), 1u);
    EXPECT_EQ(gunzipped(browser->body), plain->body);
    const auto only_brotli = client_->Get("/", {{"Accept-Encoding", "BR;q=1"}});
    ASSERT_TRUE(only_brotli);
    EXPECT_FALSE(only_brotli->has_header("Content-Encoding"));
    EXPECT_EQ(only_brotli->body, plain->body);
}

TEST_F(ServerTest, APullRequestIsComparedOnceUntilItsMachineChanges) {
    for (int request = 0; request < 3; ++request) {
        const auto result = client_->Get("/api/v1/projects/p/pulls/f1");
        ASSERT_TRUE(result);
        EXPECT_EQ(result->body, R"({"head":"f1"})");
    }
    EXPECT_EQ(comparisons_.load(), 1);
    ASSERT_TRUE(client_->Get("/api/v1/projects/p/pulls/f1?machine=m2"));
    EXPECT_EQ(comparisons_.load(), 2);

    model::Run run = testing::sample_run("m1", "c11", 12);
    run.results = {testing::result("a", 120)};
    store_->record(run);
    ASSERT_TRUE(wait_for_runs(11));
    ASSERT_TRUE(client_->Get("/api/v1/projects/p/pulls/f1"));
    ASSERT_TRUE(client_->Get("/api/v1/projects/p/pulls/f1?machine=m2"));
    EXPECT_EQ(comparisons_.load(), 3);  // m2 did not change
}

TEST(ParseListen, HostAndPortForms) {
    const auto v4 = parse_listen("127.0.0.1:8080");
    EXPECT_EQ(v4.host, "127.0.0.1");
    EXPECT_EQ(v4.port, 8080);
    const auto v6 = parse_listen("[::1]:0");
    EXPECT_EQ(v6.host, "::1");
    EXPECT_EQ(v6.port, 0);
    const auto port_only = parse_listen(":9000");
    EXPECT_EQ(port_only.host, "127.0.0.1");
    EXPECT_EQ(port_only.port, 9000);
    EXPECT_EQ(parse_listen("0.0.0.0:80").host, "0.0.0.0");
}

TEST(ParseListen, MalformedAddressesAreNamed) {
    for (const std::string text : {"8080", "localhost:", "localhost:http", "host:65536", "host:-1",
                                   "::1:8080", "host:80x"}) {
        try {
            parse_listen(text);
            ADD_FAILURE() << text << " was accepted";
        } catch (const ServeError& error) {
            EXPECT_EQ(std::string(error.what()),
                      "--listen '" + text +
                          "' is not HOST:PORT with a port from 0 to 65535; for example --listen "
                          "127.0.0.1:8080");
        }
    }
}

TEST(DashboardServerRefresh, ANewRunIsReadWhenPeekedNotAtTheNextRefresh) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    const std::string url = benchwatch::testing::test_store_url(directory.path());
    const auto store = store::open_store(url);
    testing::record_sample_history(*store);
    const auto server_store = store::open_store(url);
    DashboardLoader loader(*server_store, nullptr, DashboardOptions{});
    DashboardSource source;
    source.version = [&] { return server_store->last_run_id(); };
    source.peek = [&] { return server_store->peek_last_run_id(); };
    source.load = [&] { return loader.load(); };
    source.update = [&](const Dashboard& previous, const auto& show_unjudged) {
        return loader.update(previous, show_unjudged);
    };
    // A refresh interval no test waits for: only the peek can make it read the new run.
    DashboardServer server(std::move(source), std::chrono::minutes(10));
    const int port = server.bind({"127.0.0.1", 0});
    std::thread serving([&] { server.run(); });
    httplib::Client client("127.0.0.1", port);
    model::Run run = testing::sample_run("m1", "c11", 12);
    run.results = {testing::result("a", 120)};
    store->record(run);
    bool shown = false;
    for (int attempt = 0; attempt < 200 && !shown; ++attempt) {
        const auto result = client.Get("/api/v1/projects/p/benchmarks");
        shown = result && json::parse(result->body)["runs"] == 11;
        if (!shown) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    server.stop();
    serving.join();
    EXPECT_TRUE(shown);
}

TEST(DashboardServerBind, AddressInUseIsNamed) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    const auto source = [&] {
        DashboardSource s;
        s.version = [&] { return store->last_run_id(); };
        s.load = [&] { return load_dashboard(*store, nullptr, {}); };
        s.compare_pull = [](const std::string&, const std::string&, const std::string&) {
            return error_response(404, "none");
        };
        return s;
    };
    DashboardServer first(source(), std::chrono::milliseconds(1000));
    const int port = first.bind({"127.0.0.1", 0});
    DashboardServer second(source(), std::chrono::milliseconds(1000));
    try {
        second.bind({"127.0.0.1", port});
        ADD_FAILURE() << "a second server bound the same port";
    } catch (const ServeError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "cannot listen on 127.0.0.1:" + std::to_string(port) +
                      " (in use, or not an address of this machine); pass --listen with another "
                      "host or port");
    }
}

}  // namespace
}  // namespace benchwatch::serve
